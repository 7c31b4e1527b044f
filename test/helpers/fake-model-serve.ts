/**
 * The fake model (./fake-model.ts) as a standalone OpenAI- and Anthropic-compatible server on
 * 127.0.0.1, for trying `ctxscope probe` (and its judge) without a real model — docs/probe.md's
 * worked example shows its output. It answers from what it was sent: a recall question from the
 * message that holds the question's cue, a next action by repeating the last tool call, a grade by
 * whether the answer holds the reference. It is no language model: its answers say what the
 * context held, not what a model would make of it.
 *
 *   npx tsx test/helpers/fake-model-serve.ts [PORT]    (default 11434, Ollama's port)
 */
import { createServer } from 'node:http';
import { fakeModel } from './fake-model';

const port = Number(process.argv[2] ?? 11434);
if (!Number.isInteger(port) || port < 1 || port > 65535) {
  process.stderr.write(`fake-model-serve: expected a port from 1 to 65535, got "${process.argv[2]}"\n`);
  process.exit(2);
}
const handle = fakeModel();
let n = 0;
const server = createServer((req, res) => {
  const chunks: Buffer[] = [];
  req.on('data', (d: Buffer) => chunks.push(d));
  req.on('end', () => handle(req, Buffer.concat(chunks).toString('utf8'), res, n++));
});
server.listen(port, '127.0.0.1', () =>
  process.stdout.write(`fake model at http://127.0.0.1:${port}/v1 (OpenAI) and http://127.0.0.1:${port} (Anthropic)\n`),
);
