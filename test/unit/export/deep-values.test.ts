/**
 * Exports of values nested as deep as a transcript likes: JSON is written and argument strings are
 * rewritten without recursion (src/core/export/json-text.ts, writers.ts), so a tool input nested
 * 10,000 levels exports in every target, redacted or not; and the JSON written is exactly what
 * `JSON.stringify` writes for the values it can handle.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { exportMessages, exportRedacted, sessionInput, TRANSCRIPT_TARGETS } from '../../../src/core/export/index';
import { mapJsonStrings, stringifyJson } from '../../../src/core/export/json-text';
import { call, msg, result, session, user } from '../../helpers/session';

const DEPTH = 10_000;
const SECRET = 'PASSWORD=deep-nested-Passw0rd';
/** `{"a":{"a":…{"k":SECRET}…}}`, built as text: the engine's own JSON.stringify cannot write it. */
const deepArgs = '{"a":'.repeat(DEPTH) + JSON.stringify({ k: SECRET, list: [1, 'two', null] }) + '}'.repeat(DEPTH);

describe('a tool input nested 10,000 levels', () => {
  const s = session([user('go'), msg('assistant', [call('t1', 'x', deepArgs)]), msg('user', [result('t1', 'ok')])], {
    tools: [{ name: 'x', description: 'deep', parameters: JSON.parse(deepArgs) as Record<string, unknown> }],
  });

  for (const target of TRANSCRIPT_TARGETS) {
    it(`${target}: exports as is and with redaction`, async () => {
      const plain = exportMessages(sessionInput(s), target);
      expect(plain.text).toContain('deep-nested-Passw0rd');
      const red = await exportRedacted(sessionInput(s), target, { title: 'deep' });
      expect(red.text).not.toContain('deep-nested-Passw0rd');
      expect(red.text).toContain('[REDACTED:env-secret]');
      // Once in the call's arguments, once in the tool definition's parameters.
      expect(red.byKind['env-secret']).toBe(2);
      // The nesting is all still there (as JSON, or as JSON inside a JSON string).
      expect(red.text.split(/\\?"a\\?"/).length - 1).toBeGreaterThanOrEqual(DEPTH);
      // Indentation stops growing: the text stays linear in the depth.
      expect(red.text.length).toBeLessThan(100 * DEPTH);
    });
  }
});

describe('JSON without recursion', () => {
  it('stringifyJson writes what JSON.stringify writes, compact and indented', () => {
    fc.assert(
      fc.property(fc.jsonValue(), fc.constantFrom(0, 2), (v, indent) => {
        expect(stringifyJson(v, indent)).toBe(JSON.stringify(v, null, indent));
      }),
      { numRuns: 500 },
    );
  });

  it('stringifyJson indents 64 levels and writes deeper ones compact, still as valid JSON', () => {
    const v = JSON.parse('[{"a":'.repeat(70) + '1' + '}]'.repeat(70)) as unknown;
    const text = stringifyJson(v, 2);
    expect(JSON.parse(text)).toEqual(v);
    expect(Math.max(...text.split('\n').map((l) => l.length - l.trimStart().length))).toBe(2 * 63);
  });

  it('stringifyJson leaves out undefined members and writes undefined items and non-finite numbers as null, as JSON.stringify does', () => {
    const v = { a: undefined, b: [undefined, Number.NaN, Infinity], c: { d: 1 } };
    expect(stringifyJson(v, 2)).toBe(JSON.stringify(v, null, 2));
  });

  it('mapJsonStrings changes only the strings it is told to, keys included, and keeps the layout', () => {
    fc.assert(
      fc.property(fc.jsonValue(), fc.constantFrom(0, 2), (v, indent) => {
        const text = JSON.stringify(v, null, indent);
        expect(mapJsonStrings(text, (s) => s)).toBe(text);
        const f = (s: string): string => s.toUpperCase() + '\u2028"';
        // The same change made on the value (fast-check's values are shallow enough to recurse on here).
        const mapValue = (x: unknown): unknown =>
          typeof x === 'string'
            ? f(x)
            : Array.isArray(x)
              ? x.map(mapValue)
              : x !== null && typeof x === 'object'
                ? Object.fromEntries(Object.entries(x).map(([k, y]) => [f(k), mapValue(y)]))
                : x;
        expect(JSON.parse(mapJsonStrings(text, f))).toEqual(mapValue(JSON.parse(text)));
      }),
      { numRuns: 300 },
    );
    expect(mapJsonStrings('{ "k\\"ey": ["v\\\\", 1] }', (s) => `<${s}>`)).toBe('{ "<k\\"ey>": ["<v\\\\>", 1] }');
  });
});
