/**
 * Conformance over a folder of real transcripts kept beside the checkout (`shared/corpus`, skipped
 * where it is absent): each file's detected format, and the main-chain counts its SOURCES.md lists
 * (or derived by hand from the file where the table gives none).
 */
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { importSource } from '../../../src/core/import/index';
import { fileSource } from '../../../src/main/io/file-source';

const corpus = join(__dirname, '../../../../shared/corpus');
const present = existsSync(corpus);
if (!present) console.log(`corpus conformance skipped: ${corpus} is absent`);

interface Expect {
  format: string;
  /** Main-chain LLM calls (assistant messages). */
  calls?: number;
  /** Messages including the system prompt when the format logs one. */
  messages?: number;
  compactions?: number;
}
const FILES: Record<string, Expect> = {
  // SOURCES.md: main chain 10 API calls (unique message.id), sidechain 10.
  'claude-code/ccviewer-5c0375b4.jsonl': { format: 'claude-code', calls: 10 },
  'claude-code/kvsankar-real-session-01.jsonl': { format: 'claude-code', calls: 1, messages: 2 },
  // 2 API calls (unique message.id); 2 compact_boundary lines.
  'claude-code/agentsessions-stage0-catalog.jsonl': { format: 'claude-code', calls: 2, compactions: 2 },
  'codex-rollout/kvsankar-real-session-01.jsonl': { format: 'codex', calls: 1 },
  // 6 `compacted` lines.
  'codex-rollout/agentsessions-stage0-catalog.jsonl': { format: 'codex', compactions: 6 },
  'gemini-cli/kvsankar-real-session-01.json': { format: 'gemini-cli', messages: 2 },
  'gemini-cli/agentsessions-stage0-v040.jsonl': { format: 'gemini-cli', calls: 2 },
  'gemini-cli/agentsessions-stage0-large.json': { format: 'gemini-cli' },
  'openhands/runtime-traj-basic.json': { format: 'openhands' },
  // history 24 (incl. the system prompt), trajectory 11 calls.
  'swe-agent/marshmallow-1867-function_calling_replace.traj': { format: 'swe-agent', calls: 11, messages: 24 },
  // 22 messages (system/user/assistant, bare list).
  'openai-chat/mini-swe-agent-github_issue.traj.json': { format: 'openai-chat', messages: 22 },
};

describe.skipIf(!present)('corpus conformance', () => {
  for (const [file, want] of Object.entries(FILES)) {
    it(`${file}: ${want.format}`, async () => {
      const out = await importSource(fileSource(join(corpus, file)));
      expect(out.format).toBe(want.format);
      const s = out.sessions[0]!;
      if (want.calls !== undefined) expect(s.messages.filter((m) => m.role === 'assistant').length).toBe(want.calls);
      if (want.messages !== undefined) expect(s.messages.length + (s.systemPrompt !== null ? 1 : 0)).toBe(want.messages);
      if (want.compactions !== undefined) expect(s.sourceCompactions.length).toBe(want.compactions);
    });
  }
});
