/** Bad or odd input never breaks the replay: empty sessions, orphans, a bad config — clear answers. */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type { Message, Part } from '../../../src/core/model';
import { POLICY_IDS, getPolicy } from '../../../src/core/policies/index';
import { replay } from '../../../src/core/replay/index';
import { countWith } from '../../../src/core/tokens/index';
import { assistant, call, msg, result, session, toolResult, user } from '../../helpers/session';

describe('odd sessions', () => {
  it('an empty session gives zero steps and zero totals', async () => {
    const r = await replay(session([]), { tokenizer: 'chars4' });
    expect(r.steps.count).toBe(0);
    expect(r.totals).toMatchObject({ billedInputTokens: 0, compressions: 0, peak: 0 });
  });

  it('a bad config names the field', async () => {
    await expect(replay(session([user('x')]), { trigger: 2 } as never)).rejects.toThrow(/config: trigger: /);
    await expect(replay(session([user('x')]), { tokenizer: 'nope' })).rejects.toThrow(/nope/);
  });

  it('counts of another session are refused; counts of another tokenizer are flagged', async () => {
    const a = session([user('hello'), assistant('hi')]);
    const b = session([user('hello'), assistant('hi'), user('more'), assistant('ok')]);
    await expect(replay(b, { tokenizer: 'chars4' }, { counts: countWith(a, 'chars4') })).rejects.toThrow(
      /counts cover 2 messages but the session has 4/,
    );
    const r = await replay(a, { tokenizer: 'chars4' }, { counts: countWith(a, 'runes2.5') });
    expect(r.events[0]).toMatchObject({
      kind: 'warning',
      text: 'counts were made with runes2.5, the config asks for chars4: figures follow runes2.5',
    });
  });

  it('tool preflight head-tail clips a big result to toolOutputMaxBytes', async () => {
    const s = session([user('go'), assistant([call('c1')]), toolResult('c1', 'y'.repeat(20_000)), assistant('done')]);
    const r = await replay(s, { tokenizer: 'chars4', toolOutputMaxBytes: 12_288, toolOutputMode: 'head-tail', summarizer: 'none' });
    expect(r.events.find((e) => e.kind === 'tool-preflight')).toMatchObject({
      action: 'head-tail',
      bytesBefore: 20_000,
      bytesAfter: 12_288,
    });
  });

  it('orphaned calls and results, tool-role messages and empty messages replay under every policy (property)', async () => {
    const partArb: fc.Arbitrary<Part> = fc.oneof(
      fc.string({ maxLength: 200 }).map((t) => ({ kind: 'text', text: t }) as Part),
      fc.constantFrom('a', 'b', 'c').map((id) => call(id)),
      fc.constantFrom('a', 'b', 'z').map((id) => result(id, 'out '.repeat(50))),
      fc.constant({ kind: 'reasoning', text: 'hmm' } as Part),
      fc.constant({ kind: 'media', mediaType: 'image/png' } as Part),
    );
    const msgArb: fc.Arbitrary<Message> = fc
      .tuple(fc.constantFrom('user', 'assistant', 'tool', 'system'), fc.array(partArb, { maxLength: 3 }), fc.boolean())
      .map(([role, parts, pinned]) => msg(role as Message['role'], parts, pinned ? { pinned: true } : {}));
    await fc.assert(
      fc.asyncProperty(fc.array(msgArb, { maxLength: 40 }), fc.constantFrom(...POLICY_IDS), async (msgs, id) => {
        const r = await replay(session(msgs), {
          ...getPolicy(id)!.config,
          tokenizer: 'chars4',
          window: 1_500,
          maxOutput: 200,
          referenceTokenizer: 'chars4',
          summarizer: 'extractive',
        });
        expect(r.steps.count).toBe(msgs.filter((m) => m.role === 'assistant').length);
        for (let i = 0; i < r.steps.count; i++) expect(Number.isFinite(r.steps.total[i]!)).toBe(true);
      }),
      { numRuns: 150 },
    );
  });
});
