/**
 * The Claude Code tail's `prepare` (core/formats/claude-code.ts): the stored message ids an append
 * checks new lines against, read 5,000 at a time with a yield after each slice, none missed.
 */
import { describe, expect, it } from 'vitest';
import { format } from '../../../src/core/formats/claude-code';
import type { StoredSession } from '../../../src/core/formats/types';
import type { IdHashSet } from '../../../src/core/formats/id-set';

interface State {
  readonly lines: number;
  readonly leaf: string | undefined;
  readonly ids: IdHashSet | undefined;
}

function stored(n: number): { session: StoredSession; reads: [number, number][] } {
  const ids = Array.from({ length: n }, (_, i) => `m-${i}`);
  const reads: [number, number][] = [];
  const none = (): never => {
    throw new Error('not read by prepare');
  };
  return {
    reads,
    session: {
      id: 's',
      messageCount: n,
      model: null,
      messagesFrom: none,
      messageIdsBetween: (from, to) => (reads.push([from, to]), ids.slice(from, to)),
      backward: none,
      rawOf: none,
      meta: none,
    },
  };
}

const prepare = format.tail!.lines!.prepare! as unknown as (s: State, session: StoredSession) => Generator<void, State, void>;

describe('the Claude Code tail prepared before its first append', () => {
  it('reads the ids in slices of 5,000, yielding after each, and holds every one', () => {
    // 11,000 messages: slices [0, 5000), [5000, 10000), [10000, 11000) — three yields.
    const { session, reads } = stored(11_000);
    const steps = prepare({ lines: 10, leaf: 'x', ids: undefined }, session);
    let yields = 0;
    let r = steps.next();
    for (; !r.done; r = steps.next()) yields++;
    expect(yields).toBe(3);
    expect(reads).toEqual([
      [0, 5_000],
      [5_000, 10_000],
      [10_000, 11_000],
    ]);
    const ids = r.value.ids!;
    for (const i of [0, 4_999, 5_000, 10_999]) expect(ids.has(`m-${i}`)).toBe(true);
    expect(ids.has('m-11000')).toBe(false);
    expect(r.value).toMatchObject({ lines: 10, leaf: 'x' });
  });

  it('reads nothing when the ids are held already, or the file has no fast path', () => {
    const { session, reads } = stored(5);
    const held = { lines: 1, leaf: 'x', ids: prepareAll(session) };
    expect(run(prepare(held, session))).toBe(held);
    const noLeaf = { lines: 1, leaf: undefined, ids: undefined };
    expect(run(prepare(noLeaf, session))).toBe(noLeaf);
    expect(reads).toHaveLength(1);
  });
});

function run(steps: Generator<void, State, void>): State {
  for (;;) {
    const r = steps.next();
    if (r.done) return r.value;
  }
}
function prepareAll(session: StoredSession): IdHashSet {
  return run(prepare({ lines: 1, leaf: 'x', ids: undefined }, session)).ids!;
}
