/**
 * The export worker gets, for the history at a call, only a replay's compressions
 * (replayForWorker): the window it builds from them must be the one the whole replay gives, at
 * every call and at the end; a report keeps the whole replay.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { windowAt } from '../../../src/core/export/window-at';
import { importSource, stringSource } from '../../../src/core/import/index';
import { replay } from '../../../src/core/replay/index';
import { replayForWorker } from '../../../src/main/host/export-runner';

const sample = join(__dirname, '../../../resources/sample/sample-session.jsonl');
const args = (to: 'openai' | 'report-csv', at: number | 'end' = 'end') => ({
  sessionId: 's',
  overrides: {},
  at,
  to,
  redact: false,
  redactPatterns: [],
});

describe('replayForWorker', () => {
  it('keeps every window of a compressing replay, at every call, with fewer events', async () => {
    const session = (await importSource(stringSource(sample, readFileSync(sample, 'utf8')))).sessions[0]!;
    const full = await replay(session, {
      tokenizer: 'chars4',
      window: 6_000,
      maxOutput: 500,
      buffer: 0,
      trigger: 0.5,
      target: 0.4,
      summarizer: 'extractive',
      pipeline: ['observation-masking', 'summarize'],
    });
    expect(full.events.some((e) => e.kind === 'compression')).toBe(true);
    const slim = replayForWorker(full, args('openai'));
    expect(slim.events.length).toBeLessThan(full.events.length);
    // Only the last compression's summary goes: sending a summary writes its text (summary-text.ts).
    expect(slim.events.filter((e) => 'summary' in e).length).toBe(1);
    // What the worker receives is a structured clone: the summary arrives as its text.
    expect(windowAt(structuredClone(slim), session.messages, 'end')).toEqual(windowAt(full, session.messages, 'end'));
    for (let at = 0; at < full.steps.count; at++)
      expect(windowAt(structuredClone(replayForWorker(full, args('openai', at))), session.messages, at)).toEqual(
        windowAt(full, session.messages, at),
      );
    expect(replayForWorker(full, args('report-csv'))).toBe(full);
  });
});
