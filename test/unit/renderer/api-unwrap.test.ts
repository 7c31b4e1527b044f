/**
 * The window's side of an answer written ahead (shared/api.ts JsonText): over IPC the host hands
 * the chart view's text through and `unwrap` parses it; any other answer is taken as it is.
 */
import { describe, expect, it } from 'vitest';
import { answerOf, ApiError, isJsonText, toJsonText } from '../../../src/shared/api';
import { unwrap } from '../../../src/renderer/src/api/ipc';

describe('answers written ahead', () => {
  const view = { key: 'k', stepCount: 2, warnings: ['a "quoted" word'], markers: { texts: [], kind: [], numbers: ['1,200'] } };

  it('unwraps a JsonText to the value it was written from, and a plain answer to itself', () => {
    expect(unwrap({ ok: true, value: toJsonText(view) })).toEqual(view);
    expect(unwrap({ ok: true, value: view })).toBe(view);
    expect(answerOf(toJsonText([1, 2]))).toEqual([1, 2]);
  });

  it('still throws the envelope error with its code', () => {
    expect(() => unwrap({ ok: false, error: { code: 'not_found', message: 'gone' } })).toThrow(ApiError);
    expect(() => unwrap({ ok: false, error: { code: 'not_found', message: 'gone' } })).toThrow('gone');
  });

  it('tells a JsonText from answers that merely hold a string', () => {
    expect(isJsonText(toJsonText(view))).toBe(true);
    // Another key beside it, a non-string text, null, an array, a string: not written ahead.
    expect(isJsonText({ jsonText: '{}', other: 1 })).toBe(false);
    expect(isJsonText({ jsonText: 3 })).toBe(false);
    expect(isJsonText(null)).toBe(false);
    expect(isJsonText(['{}'])).toBe(false);
    expect(isJsonText('{}')).toBe(false);
    // A contract answer of that one key would be taken for one: none has it (the check reads it so).
    expect(unwrap({ ok: true, value: { jsonText: '"x"' } })).toBe('x');
  });
});
