/**
 * A live-tail append hands the replay a new message list that keeps the old one's messages as the
 * same objects (host/session-append.ts): the facts and the summaries of folds the old list was
 * replayed with carry over, so the grown session's replay summarizes no fold it summarized before
 * — and its result is the one a replay of a fresh copy of the grown session gives.
 */
import { describe, expect, it } from 'vitest';
import type { Message } from '../../../src/core/model';
import { carryReplayCaches } from '../../../src/core/replay/carry';
import { replay } from '../../../src/core/replay/index';
import { factIndex } from '../../../src/core/replay/retention';
import { extractiveSummarizer } from '../../../src/core/summarize/extractive';
import type { Summarizer, SummaryTextRequest } from '../../../src/core/summarize/types';
import { countWith } from '../../../src/core/tokens/index';
import { assistant, call, msg, result, session, user } from '../../helpers/session';
import { compressions, policy } from '../../helpers/replay';

/** A coding session: each turn a request, a read with a distinct result, and a decision. */
function coding(from: number, turns: number): Message[] {
  const out: Message[] = [];
  for (let t = from; t < from + turns; t++) {
    out.push(user(`Please fix handleRequest${t} in src/server/module${t}.ts, the port ${8000 + t} is wrong.`));
    out.push(
      assistant([{ kind: 'text', text: `Reading module${t} first.` }, call(`c${t}`, 'Read', `{"file_path":"src/server/module${t}.ts"}`)]),
    );
    out.push(msg('user', [result(`c${t}`, `export const port${t} = ${9000 + t};\n`.repeat(30))]));
    out.push(assistant(`The root cause is the default port ${9000 + t}, because config${t} is undefined. I decided to use ${8000 + t}.`));
  }
  return out;
}

const tokenizer = 'tiktoken:o200k_base';
const config = policy('letta', { tokenizer, window: 16_000, maxOutput: 2_000, trigger: 0.5 });
/** Deep copies: objects no cache has seen. */
const fresh = (ms: readonly Message[]): Message[] => JSON.parse(JSON.stringify(ms)) as Message[];

describe('replay caches carried to a grown session', () => {
  it('summarizes no fold twice, with the result of a fresh replay', async () => {
    const old = coding(0, 80);
    const asked: SummaryTextRequest[] = [];
    // The replay asks a local summarizer for its laid-out summary (summarizeText).
    const spy: Summarizer = {
      ...extractiveSummarizer,
      summarizeText: (req) => (asked.push(req), extractiveSummarizer.summarizeText!(req)),
    };
    const before = session(old);
    await replay(before, config, { counts: countWith(before, tokenizer), summarizer: spy });
    expect(compressions(await replay(before, config, { counts: countWith(before, tokenizer), summarizer: spy })).length).toBeGreaterThan(3);
    const seen = new Set(asked.map(foldKey));

    // The append: the last message is rewritten (its next part arrived) and new turns follow.
    const from = old.length - 1;
    const next = [...old.slice(0, from), ...fresh(old.slice(from)), ...coding(80, 20)];
    carryReplayCaches(old, next, from);
    asked.length = 0;
    const grown = session(next);
    const carried = await replay(grown, config, { counts: countWith(grown, tokenizer), summarizer: spy });
    // Only folds it had not summarized before: compactions the new messages bring.
    expect(asked.length).toBeGreaterThan(0);
    for (const r of asked) expect(seen.has(foldKey(r))).toBe(false);

    const copy = session(fresh(next));
    const expected = await replay(copy, config, { counts: countWith(copy, tokenizer), summarizer: extractiveSummarizer });
    expect(carried.steps).toEqual(expected.steps);
    expect(compressions(carried)).toEqual(compressions(expected));
    expect(carried.retention).toEqual(expected.retention);
    expect(factIndex(next)).toEqual(factIndex(copy.messages));
  });

  it('refuses a list whose kept messages are not the same objects', () => {
    const old = coding(0, 2);
    expect(() => carryReplayCaches(old, fresh(old), old.length)).toThrow(/message 0/);
  });
});

function foldKey(r: SummaryTextRequest): string {
  return JSON.stringify([r.targetTokens, r.previous?.text ?? null, r.messages.map((m) => m.id)]);
}
