/** User patterns run on RE2 (linear time); what RE2 cannot run is refused by name. */
import { describe, expect, it } from 'vitest';
import { compilePattern, parseNeedle, PatternError, replaceAll } from '../../../src/core/pattern';

describe('compilePattern', () => {
  it('answers at once on the pattern that froze the host (/(\\w+\\s?)+$/ on a long line)', () => {
    // Backtracking would try every split of the 30,000 letters before failing at the '!'.
    const p = compilePattern('/(\\w+\\s?)+$/', 'needle');
    expect(p.test('a'.repeat(30_000) + '!')).toBe(false);
    expect(p.test('some words at the end')).toBe(true);
  }, 10_000);

  it('refuses backreferences and lookaround, naming the construct', () => {
    expect(() => compilePattern('/(a)\\1/', 'needle')).toThrow(/needle \/\(a\)\\1\/: backreferences \(\\1\) not supported/);
    expect(() => compilePattern('/(?<q>a)\\k<q>/')).toThrow(/named backreferences/);
    expect(() => compilePattern('/a(?=b)/')).toThrow(/lookahead \(\?=…\) not supported/);
    expect(() => compilePattern('/a(?!b)/')).toThrow(/negative lookahead/);
    expect(() => compilePattern('/(?<=a)b/')).toThrow(/lookbehind \(\?<=…\)/);
    expect(() => compilePattern('/(?<!a)b/')).toThrow(/negative lookbehind/);
    expect(() => compilePattern('/a(/', 'redaction pattern')).toThrow(PatternError);
    expect(() => compilePattern('/a(/', 'redaction pattern')).toThrow(
      /^redaction pattern \/a\(\/: not a valid regular expression \(missing closing \)/,
    );
    expect(() => compilePattern('/a/y')).toThrow(/flag "y" is not supported/);
  });

  it('does not mistake an escaped backslash or a class for a backreference', () => {
    expect(compilePattern('/a\\\\1/').test('a\\1')).toBe(true);
    expect(compilePattern('/[(?=]/').test('=')).toBe(true);
  });

  it('honours i, m and s; plain text is literal', () => {
    expect(compilePattern('/SECRET/i').test('my secret')).toBe(true);
    expect(compilePattern('/^b$/m').test('a\nb\nc')).toBe(true);
    expect(compilePattern('/^b$/').test('a\nb\nc')).toBe(false);
    expect(compilePattern('/a.b/s').test('a\nb')).toBe(true);
    expect(compilePattern('/a.b/').test('a\nb')).toBe(false);
    expect(compilePattern('a.b').test('axb')).toBe(false);
    expect(compilePattern('a.b').test('a.b')).toBe(true);
    expect(() => compilePattern('', 'needle')).toThrow(/needle: expected text or \/regex\//);
  });

  it('gives match ranges in UTF-16 offsets, past astral characters, empty matches skipped', () => {
    expect(compilePattern('/é+/').ranges('x😀ééé y é')).toEqual([
      [3, 6],
      [9, 10],
    ]);
    expect(compilePattern('ab').ranges('abab-ab')).toEqual([
      [0, 2],
      [2, 4],
      [5, 7],
    ]);
    expect(compilePattern('/x*/').ranges('axxb')).toEqual([[1, 3]]);
  });

  it('replaceAll applies each pattern in turn and counts', () => {
    const r = replaceAll('token=abc token=def mail', [compilePattern('/token=\\w+/'), compilePattern('mail')], (m) => `<${m.length}>`);
    expect(r).toEqual({ text: '<9> <9> <4>', count: 3 });
  });
});

describe('parseNeedle (the drop-in for retention.ts)', () => {
  it('keeps the spec as key and tests plain and regex needles', () => {
    const plain = parseNeedle('API_KEY');
    expect(plain.key).toBe('API_KEY');
    expect(plain.test('set API_KEY now')).toBe(true);
    const re = parseNeedle('/port \\d{4}/');
    expect(re.test('listening on port 8080')).toBe(true);
    expect(re.test('port 80')).toBe(false);
    expect(() => parseNeedle('/(x)\\1/')).toThrow(/^needle /);
  });
});
