/**
 * Writes a synthetic Claude Code session shaped like a real one (test/bench/corpus.ts,
 * claudeCodeLines) to disk:
 *   npx tsx test/bench/make-session.ts OUT.jsonl --mb 100
 *   npx tsx test/bench/make-session.ts OUT.jsonl --calls 10000
 */
import { statSync } from 'node:fs';
import { writeClaudeCodeJsonl } from './corpus';

function usage(problem: string): never {
  process.stderr.write(`${problem}\nusage: npx tsx test/bench/make-session.ts OUT.jsonl (--mb N | --calls N)\n`);
  process.exit(2);
}

const [out, flag, value] = process.argv.slice(2);
if (!out || out.startsWith('--')) usage('expected the output file first');
const n = Number(value);
if ((flag !== '--mb' && flag !== '--calls') || !Number.isFinite(n) || n <= 0)
  usage(`expected --mb N or --calls N (a positive number), got ${flag ?? 'nothing'} ${value ?? ''}`);
const lines = await writeClaudeCodeJsonl(out, flag === '--mb' ? n : 0, flag === '--calls' ? { calls: Math.floor(n) } : {});
process.stdout.write(`wrote ${out}: ${lines.toLocaleString('en-US')} lines, ${(statSync(out).size / 1e6).toFixed(1)} MB\n`);
