/**
 * docs/policies.md §S4: the hard budgets are checked at the start of each call with what the calls
 * before it used (`if (tokensUsed >= maxTokens) abort`), 30 minutes among them. A call's minutes are
 * those up to the moment it is sent, not up to its own answer.
 */
import { describe, expect, it } from 'vitest';
import { replay } from '../../../src/core/replay/index';
import { stepDetail } from '../../../src/core/replay/step-detail';
import { policy, reasonAt, statusAt } from '../../helpers/replay';
import { assistant, session, user } from '../../helpers/session';

const T0 = Date.UTC(2026, 0, 1, 9, 0, 0);
const at = (minutes: number) => ({ timestamp: T0 + minutes * 60_000 });

/** Three calls: sent at 0, 29.5 and 30.2 minutes; answered half a minute to a minute later. */
const messages = [
  user('start the job', at(0)),
  assistant('working', at(0.5)),
  user('go on', at(29.5)),
  assistant('still working', at(30.5)),
  user('and again', at(30.2)),
  assistant('done', at(31)),
];

describe('S4: the minutes budget counts the time before the call', () => {
  it('a call sent at 29.5 minutes goes (29.5 < 30); one sent at 30.2 is aborted (30.2 ≥ 30)', async () => {
    const r = await replay(session(messages), policy('s4', { window: 1_000_000 }));
    expect(statusAt(r, 0)).toBe('ok');
    // Call 1 is sent when "go on" arrives, 29.5 minutes after the first timestamp: 29.5 ≥ 30 is false, so
    // it goes — with the warning at 80%: round(29.5 / 30 × 100) = 98%. Measured to its answer (30.5) it would have been aborted.
    expect(statusAt(r, 1)).toBe('warn');
    expect(reasonAt(r, 1)).toBe('session minutes budget at 98% (29.5 min of 30 min)');
    // Call 2 is sent at 30.2 minutes: 30.2 ≥ 30, the run aborts.
    expect(statusAt(r, 2)).toBe('abort');
    expect(reasonAt(r, 2)).toBe('session minutes budget exceeded (30.2 min of 30 min): run aborted');
    expect(r.events.find((e) => e.kind === 'abort')).toMatchObject({ step: 2, budget: 'minutes', max: 30 });
  });

  it('the call’s detail shows the same minutes the replay checked', async () => {
    const s = session(messages);
    const r = await replay(s, policy('s4', { window: 1_000_000 }));
    const d = stepDetail(r, s, 1, { key: 'k' });
    // Call 1: sent at 29.5 minutes.
    expect(d.budgets.find((b) => b.dimension === 'minutes')).toMatchObject({ used: 29.5, limit: 30 });
  });
});
