/** `getAccuracy` end to end through the host's handler table, on a real database in a temp folder. */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createHost, type Host } from '../../../src/main/host/handlers';

const sample = join(__dirname, '../../../resources/sample/sample-session.jsonl');
let dir: string;
let host: Host;
let id: string;

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'ctxscope-accuracy-'));
  host = await createHost({ dbPath: join(dir, 'h.db'), hostKind: 'serve', version: 't', initialFiles: [sample], emit: () => undefined });
  id = host.initialSessionId!;
});
afterAll(async () => {
  await host.close();
  rmSync(dir, { recursive: true, force: true });
});

describe('getAccuracy', () => {
  it('lists every call with usage: estimate, reported prompt and the error between them', async () => {
    const detail = await host.handlers.getSession({ id });
    const a = await host.handlers.getAccuracy({ sessionId: id });
    expect(a.tokenizer).toBe(detail.tokenizer);
    expect(a.calls.length).toBeGreaterThan(3);
    for (const c of a.calls) {
      expect(detail.steps[c.step]).toBe(c.messageIndex);
      expect(c.errorPct).toBeCloseTo(((c.estimate - c.reported) / c.reported) * 100, 0);
    }
    // The sample is a Claude Code session: the calibrated estimate includes the unlogged region.
    expect(a.calls[0]!.estimate).toBeGreaterThan(detail.counts.unlogged);
  });

  it('reports the calibration scored in and out of sample, and no fallback', async () => {
    const a = await host.handlers.getAccuracy({ sessionId: id });
    expect(a.fallback).toBeNull();
    expect(a.calibration).not.toBeNull();
    expect(a.calibration!.calls).toBe(a.calls.length);
    expect(a.calibration!.overhead).toBeGreaterThan(10_000);
    expect(a.calibration!.inSampleError).toBeGreaterThanOrEqual(0);
    expect(a.calibration!.outOfSampleError).not.toBeNull();
  });

  it('uncalibrated, the estimate misses what the transcript does not log', async () => {
    const a = await host.handlers.getAccuracy({ sessionId: id, tokenizer: 'tiktoken:o200k_base' });
    expect(a.tokenizer).toBe('tiktoken:o200k_base');
    // Claude Code logs neither its system prompt nor its tool definitions: the first call holds a
    // few dozen logged tokens where the provider counted thousands.
    expect(a.calls[0]!.errorPct).toBeLessThan(-50);
    const calibrated = await host.handlers.getAccuracy({ sessionId: id });
    expect(Math.abs(calibrated.calls[0]!.errorPct)).toBeLessThan(Math.abs(a.calls[0]!.errorPct));
  });

  it('names an unknown tokenizer and an unknown session', async () => {
    await expect(host.handlers.getAccuracy({ sessionId: id, tokenizer: 'bogus' })).rejects.toThrow(/unknown tokenizer "bogus"/);
    await expect(host.handlers.getAccuracy({ sessionId: 'nope' })).rejects.toThrow(/no session with id "nope"/);
  });
});
