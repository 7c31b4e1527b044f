/**
 * S1's six invariants, one named property each, over generated sessions replayed under the S1
 * policy (with chars/4 so generation stays cheap; the guard's arithmetic does not depend on the
 * estimator) and random window / buffer / output settings.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type { Message, Part } from '../../../src/core/model';
import { getPolicy } from '../../../src/core/policies/index';
import { replay } from '../../../src/core/replay/index';
import { STEP_STATUSES, type ReplayResult } from '../../../src/core/replay/types';
import { assistant, call, session, toolResult, user } from '../../helpers/session';

const words = (tokens: number): string => 'ab '.repeat(tokens * 2).slice(0, tokens * 4);

const sessionArb = fc
  .array(
    fc.tuple(
      fc.integer({ min: 1, max: 400 }),
      fc.array(fc.integer({ min: 1, max: 600 }), { maxLength: 3 }),
      fc.integer({ min: 0, max: 200 }),
    ),
    { minLength: 1, maxLength: 20 },
  )
  .map((turns) => {
    const msgs: Message[] = [];
    let k = 0;
    for (const [u, results, reasoning] of turns) {
      msgs.push(user(words(u)));
      for (const r of results) {
        const id = `c${k++}`;
        msgs.push(assistant([call(id)]), toolResult(id, words(r)));
      }
      const parts: Part[] =
        reasoning > 0
          ? [
              { kind: 'reasoning', text: words(reasoning) },
              { kind: 'text', text: words(20) },
            ]
          : [{ kind: 'text', text: words(20) }];
      msgs.push(assistant(parts));
    }
    return msgs;
  });
const limitsArb = fc.record({
  window: fc.integer({ min: 2_000, max: 12_000 }),
  buffer: fc.integer({ min: 0, max: 1_000 }),
  maxOutput: fc.option(fc.integer({ min: 100, max: 1_500 }), { nil: undefined }),
});

const run = (msgs: Message[], l: { window: number; buffer: number; maxOutput: number | undefined }): Promise<ReplayResult> =>
  replay(session(msgs), {
    ...getPolicy('s1')!.config,
    tokenizer: 'chars4',
    schemaScale: 1,
    window: l.window,
    buffer: l.buffer,
    ...(l.maxOutput !== undefined ? { maxOutput: l.maxOutput } : {}),
  });
const status = (r: ReplayResult, i: number) => STEP_STATUSES[r.steps.status[i]!]!;
const maxOutputOf = (l: { window: number; maxOutput: number | undefined }) => l.maxOutput ?? Math.floor(l.window / 4);
const opts = { numRuns: 80 };

describe('S1 invariants', () => {
  // The sessions carry no tool schemas: S1's schema-only special case (allowed through) is tested in cost.test.ts.
  it('1. guarded overflow: a projection over the limit forces the final turn', async () => {
    await fc.assert(
      fc.asyncProperty(sessionArb, limitsArb, async (msgs, l) => {
        const r = await run(msgs, l);
        for (let i = 0; i < r.steps.count; i++) if (r.steps.total[i]! > r.steps.limit[i]!) expect(status(r, i)).toBe('final');
      }),
      opts,
    );
  });

  it('2. buffer preserved: the limit always subtracts bufferTokens, and the buffer region holds it while the request fits', async () => {
    await fc.assert(
      fc.asyncProperty(sessionArb, limitsArb, async (msgs, l) => {
        const r = await run(msgs, l);
        for (let i = 0; i < r.steps.count; i++) {
          expect(r.steps.limit[i]).toBe(l.window - l.buffer - maxOutputOf(l));
          if (r.steps.total[i]! <= r.steps.limit[i]!) expect(r.steps.regions.buffer[i]).toBe(l.buffer);
        }
      }),
      opts,
    );
  });

  it('3. output space reserved: maxOutputTokens (default floor(window/4)) is carved out while the request fits', async () => {
    await fc.assert(
      fc.asyncProperty(sessionArb, limitsArb, async (msgs, l) => {
        const r = await run(msgs, l);
        for (let i = 0; i < r.steps.count; i++)
          if (r.steps.total[i]! <= r.steps.limit[i]!) expect(r.steps.regions.output[i]).toBe(maxOutputOf(l));
      }),
      opts,
    );
  });

  it('4. monotonic growth: without a compression the projection only grows from call to call', async () => {
    await fc.assert(
      fc.asyncProperty(sessionArb, limitsArb, async (msgs, l) => {
        const r = await run(msgs, l);
        for (let i = 1; i < r.steps.count; i++)
          if (status(r, i) !== 'compress') expect(r.steps.total[i]!).toBeGreaterThanOrEqual(r.steps.total[i - 1]!);
      }),
      opts,
    );
  });

  it('5. final turn enforcement: decided before the call that would overflow, never one call late', async () => {
    await fc.assert(
      fc.asyncProperty(sessionArb, limitsArb, async (msgs, l) => {
        const r = await run(msgs, l);
        const firstOver = Array.from(r.steps.total).findIndex((t, i) => t > r.steps.limit[i]!);
        const firstFinal = Array.from(r.steps.status).findIndex((c) => STEP_STATUSES[c] === 'final');
        // The final turn comes from turn_preflight (a projection over the limit) or, earlier, from
        // tool_preflight (a tool output that does not fit what is left): never after the overflow.
        if (firstOver >= 0) expect(firstFinal).toBeGreaterThanOrEqual(0);
        if (firstOver >= 0) expect(firstFinal).toBeLessThanOrEqual(firstOver);
        const guard = r.events.find((e) => e.kind === 'guard' && e.decision === 'final');
        const tool = r.events.find((e) => e.kind === 'tool-preflight' && e.action === 'budget-exceeded');
        if (firstFinal < 0) expect(guard ?? tool).toBeUndefined();
        else if (guard) expect(guard).toMatchObject({ step: firstFinal, projected: r.steps.total[firstFinal] });
        else expect(tool).toMatchObject({ step: firstFinal });
      }),
      opts,
    );
  });

  it("6. reasoning included: the call's own reasoning sits inside maxOutputTokens, not on top of the request", async () => {
    await fc.assert(
      fc.asyncProperty(sessionArb, limitsArb, async (msgs, l) => {
        // Strip all reasoning, then give only the LAST call a large reasoning block.
        const plain = msgs.map((m) => (m.role === 'assistant' ? { ...m, parts: m.parts.filter((p) => p.kind !== 'reasoning') } : m));
        const last = plain.length - 1;
        const thinking = plain.map((m, i) =>
          i === last ? { ...m, parts: [{ kind: 'reasoning' as const, text: words(5_000) }, ...m.parts] } : m,
        );
        const [a, b] = [await run(plain, l), await run(thinking, l)];
        const j = a.steps.count - 1;
        expect(b.steps.total[j]).toBe(a.steps.total[j]);
        expect(b.steps.limit[j]).toBe(a.steps.limit[j]);
        expect(b.steps.regions.output[j]).toBe(a.steps.regions.output[j]);
        expect(status(b, j)).toBe(status(a, j));
      }),
      opts,
    );
  });
});
