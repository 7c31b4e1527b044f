/** Generated inputs for the benchmarks: deterministic, in memory or in os.tmpdir(). */
import { spawnSync } from 'node:child_process';
import { createWriteStream } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { once } from 'node:events';
import type { Message, Session } from '../../src/core/model';

const WORDS = ['the', 'order', 'total', 'function', 'return', 'value', 'error', 'config', 'session', 'window', 'token', 'summary', 'agent', 'file', 'path', 'test'];
let seed = 42;
const rnd = (): number => ((seed = (seed * 1_103_515_245 + 12_345) & 0x7fffffff), seed / 0x7fffffff);

export function shortTexts(n: number): string[] {
  seed = 42;
  const out: string[] = [];
  for (let i = 0; i < n; i++) {
    const kind = i % 10;
    const len = 20 + Math.floor(rnd() * 60);
    if (kind === 7) out.push(`const x${i} = compute(${i}, [${i % 13}, ${i % 7}]); // ${WORDS[i % WORDS.length]}`);
    else if (kind === 9) out.push('日本語のテキスト、中文文本 ' + i);
    else out.push(Array.from({ length: len / 4 }, () => WORDS[Math.floor(rnd() * WORDS.length)]).join(' '));
  }
  return out;
}

/** A session of `steps` LLM calls, each a user message, an assistant call and a tool result. */
export function syntheticSession(steps: number): Session {
  const messages: Message[] = [];
  for (let i = 0; i < steps; i++) {
    if (i % 5 === 0) messages.push({ id: `u${i}`, role: 'user', parts: [{ kind: 'text', text: `Please handle task ${i} in src/module${i % 50}.ts` }] });
    messages.push({ id: `a${i}`, role: 'assistant', parts: [{ kind: 'text', text: `Working on step ${i}` }, { kind: 'tool_call', id: `c${i}`, name: 'Read', args: `{"path":"src/module${i % 50}.ts"}` }] });
    messages.push({ id: `r${i}`, role: 'user', parts: [{ kind: 'tool_result', callId: `c${i}`, isError: false, text: `line ${i}\n`.repeat(5 + (i % 40)) }] });
  }
  return { id: 'bench', format: 'jsonl', model: 'gpt-4o', systemPrompt: 'You are a coding agent.', tools: [], messages, sourceCompactions: [], subagents: [], warnings: [] };
}

/** Writes a Claude Code JSONL of about `megabytes` MB; resolves with its line count. */
export async function writeClaudeCodeJsonl(path: string, megabytes: number): Promise<number> {
  const out = createWriteStream(path);
  let bytes = 0;
  let n = 0;
  let parent: string | null = null;
  const body = 'x'.repeat(600);
  while (bytes < megabytes * 1_000_000) {
    const uuid = `u-${n}`;
    const user = n % 2 === 0;
    const line = JSON.stringify({
      parentUuid: parent,
      isSidechain: false,
      sessionId: 'bench',
      uuid,
      type: user ? 'user' : 'assistant',
      timestamp: '2026-01-01T00:00:00Z',
      message: user
        ? { role: 'user', content: n % 4 === 0 ? `question ${n} ${body}` : [{ type: 'tool_result', tool_use_id: `t${n - 1}`, content: `result ${n} ${body}` }] }
        : { id: `m${n}`, role: 'assistant', model: 'claude-sonnet-4-5', content: [{ type: 'text', text: `answer ${n}` }, { type: 'tool_use', id: `t${n}`, name: 'Read', input: { path: `f${n}.ts` } }], usage: { input_tokens: 3, cache_read_input_tokens: n * 10, cache_creation_input_tokens: 20, output_tokens: 30 } },
    }) + '\n';
    parent = uuid;
    bytes += Buffer.byteLength(line);
    n++;
    if (!out.write(line)) await once(out, 'drain');
  }
  out.end();
  await once(out, 'finish');
  return n;
}

/**
 * `writeClaudeCodeJsonl` in a child process: generating 100 MB of lines leaves garbage that the
 * bench's own thread would otherwise collect in the middle of the stalls it measures.
 */
export function writeClaudeCodeJsonlApart(path: string, megabytes: number): void {
  const here = dirname(fileURLToPath(import.meta.url));
  const r = spawnSync(process.execPath, ['--import', 'tsx', join(here, 'corpus.ts'), path, String(megabytes)], { stdio: 'inherit' });
  if (r.status !== 0) throw new Error(`generating ${path} failed (exit ${r.status})`);
}

// `node --import tsx corpus.ts FILE MB` writes the corpus (see writeClaudeCodeJsonlApart).
if (process.argv[1] && fileURLToPath(import.meta.url) === process.argv[1] && process.argv.length === 4) {
  await writeClaudeCodeJsonl(process.argv[2]!, Number(process.argv[3]));
}
