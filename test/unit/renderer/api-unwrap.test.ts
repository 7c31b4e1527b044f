/**
 * The window's side of an answer written ahead (shared/api.ts JsonText): over IPC the host hands
 * a chart view's text through and the client parses it — for the WrittenAhead methods only; any
 * other answer is taken as it is, whatever it holds.
 */
import { describe, expect, it } from 'vitest';
import { answerOf, ApiError, isJsonText, isWrittenAhead, METHOD_NAMES, toJsonText } from '../../../src/shared/api';
import { createIpcClient, unwrap, type PreloadBridge } from '../../../src/renderer/src/api/ipc';

/** A preload bridge whose every method answers `answers[name]` in an envelope. */
function bridgeOf(answers: Record<string, unknown>): PreloadBridge {
  const bridge: Record<string, unknown> = { on: () => () => {} };
  for (const name of METHOD_NAMES) bridge[name] = async () => ({ ok: true, value: answers[name] ?? null });
  return bridge as unknown as PreloadBridge;
}

describe('answers written ahead', () => {
  const view = { key: 'k', stepCount: 2, warnings: ['a "quoted" word'], markers: { texts: [], kind: [], numbers: ['1,200'] } };

  it('the IPC client parses a chart view sent as JSON text, and takes another method answer as it is, even one shaped like it', async () => {
    const lookalike = { jsonText: '"not to be parsed"' };
    const client = createIpcClient(bridgeOf({ getChartView: toJsonText(view), getRawRecord: lookalike }));
    expect(await client.getChartView({ sessionId: 's', policy: 's0', overrides: {}, needles: [], buckets: 64 })).toEqual(view);
    expect(await client.getRawRecord({ sessionId: 's', index: 0 })).toBe(lookalike);
  });

  it('a chart view sent as an object (an in-thread host) is taken as it is', async () => {
    const client = createIpcClient(bridgeOf({ getChartView: view }));
    expect(await client.getChartView({ sessionId: 's', policy: 's0', overrides: {}, needles: [], buckets: 64 })).toBe(view);
  });

  it('unwrap throws the envelope error with its code', () => {
    expect(() => unwrap({ ok: false, error: { code: 'not_found', message: 'gone' } })).toThrow(ApiError);
    expect(() => unwrap({ ok: false, error: { code: 'not_found', message: 'gone' } })).toThrow('gone');
  });

  it('names getChartView only as written ahead, and tells a JsonText from answers that merely hold a string', () => {
    expect(METHOD_NAMES.filter(isWrittenAhead)).toEqual(['getChartView']);
    expect(answerOf(toJsonText([1, 2]))).toEqual([1, 2]);
    expect(isJsonText(toJsonText(view))).toBe(true);
    // Another key beside it, a non-string text, null, an array, a string: not written ahead.
    expect(isJsonText({ jsonText: '{}', other: 1 })).toBe(false);
    expect(isJsonText({ jsonText: 3 })).toBe(false);
    expect(isJsonText(null)).toBe(false);
    expect(isJsonText(['{}'])).toBe(false);
    expect(isJsonText('{}')).toBe(false);
  });
});
