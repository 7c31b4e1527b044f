/** The one bounded cache (src/core/bounded-cache.ts): least recently used out first, never over its bound. */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { BoundedCache } from '../../../src/core/bounded-cache';

describe('BoundedCache', () => {
  it('drops the least recently used entry; get counts as a use, peek does not', () => {
    const evicted: string[] = [];
    const c = new BoundedCache<string, number>({ max: 3, onEvict: (k) => evicted.push(k) });
    c.set('a', 1).set('b', 2).set('c', 3);
    expect(c.get('a')).toBe(1); // order now b, c, a
    expect(c.peek('b')).toBe(2); // still b, c, a
    c.set('d', 4); // b goes
    expect([...c.keys()]).toEqual(['c', 'a', 'd']);
    expect(evicted).toEqual(['b']);
    c.set('c', 30); // set again: the newest
    c.set('e', 5); // a goes
    expect([...c.entries()]).toEqual([
      ['d', 4],
      ['c', 30],
      ['e', 5],
    ]);
    expect(evicted).toEqual(['b', 'a']);
    // Deleted and cleared entries are not evictions.
    c.delete('d');
    c.clear();
    expect(c.size).toBe(0);
    expect(evicted).toEqual(['b', 'a']);
  });

  it('keys by identity (an array key is found by the same array only)', () => {
    const k = [1];
    const c = new BoundedCache<readonly number[], string>({ max: 2 });
    c.set(k, 'x');
    expect(c.get(k)).toBe('x');
    expect(c.get([1])).toBeUndefined();
  });

  it('refuses a bound below one', () => {
    expect(() => new BoundedCache({ max: 0 })).toThrow(RangeError);
  });

  it('behaves as a list of the most recently used keys, cut at max (model check)', () => {
    const op = fc.oneof(
      fc.record({ kind: fc.constant('set' as const), key: fc.integer({ min: 0, max: 9 }), value: fc.integer() }),
      fc.record({ kind: fc.constant('get' as const), key: fc.integer({ min: 0, max: 9 }) }),
      fc.record({ kind: fc.constant('peek' as const), key: fc.integer({ min: 0, max: 9 }) }),
      fc.record({ kind: fc.constant('delete' as const), key: fc.integer({ min: 0, max: 9 }) }),
    );
    fc.assert(
      fc.property(fc.integer({ min: 1, max: 5 }), fc.array(op, { maxLength: 60 }), (max, ops) => {
        const evicted: number[] = [];
        const c = new BoundedCache<number, number>({ max, onEvict: (k) => evicted.push(k) });
        // The model: [key, value] pairs, least recently used first.
        let model: [number, number][] = [];
        const modelEvicted: number[] = [];
        for (const o of ops) {
          const at = model.findIndex(([k]) => k === o.key);
          if (o.kind === 'set') {
            c.set(o.key, o.value);
            if (at >= 0) model.splice(at, 1);
            model.push([o.key, o.value]);
            while (model.length > max) modelEvicted.push(model.shift()![0]);
          } else if (o.kind === 'get') {
            const got = c.get(o.key);
            expect(got).toBe(at >= 0 ? model[at]![1] : undefined);
            if (at >= 0) model.push(...model.splice(at, 1));
          } else if (o.kind === 'peek') {
            expect(c.peek(o.key)).toBe(at >= 0 ? model[at]![1] : undefined);
          } else {
            expect(c.delete(o.key)).toBe(at >= 0);
            if (at >= 0) model = model.filter(([k]) => k !== o.key);
          }
          expect(c.size).toBeLessThanOrEqual(max);
        }
        expect([...c.entries()]).toEqual(model);
        expect(evicted).toEqual(modelEvicted);
      }),
    );
  });
});
