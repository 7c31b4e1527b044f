import { describe, expect, it } from 'vitest';
import { ApiError } from '../../../../src/shared/api';
import { codeOf, createRequests, describe as describeError } from '../../../../src/renderer/src/slices/request';

function host(currentId: string | null = 's1') {
  const state = { currentId, error: null as string | null };
  const requests = createRequests({ get: () => state, showError: (error) => Object.assign(state, { error }) });
  return { state, requests };
}

function held<T>() {
  let resolve!: (v: T) => void;
  let reject!: (e: unknown) => void;
  const promise = new Promise<T>((res, rej) => {
    resolve = res;
    reject = rej;
  });
  return { promise, resolve, reject };
}

describe('request helper: send', () => {
  it('applies an answer while its session is open and reports it applied', async () => {
    const { requests } = host();
    const got: number[] = [];
    expect(await requests.send(() => Promise.resolve(7), { onAnswer: (v) => void got.push(v) })).toBe(true);
    expect(got).toEqual([7]);
  });

  it('drops an answer (and a failure) once another session is open', async () => {
    const { state, requests } = host();
    const answer = held<number>();
    const failure = held<number>();
    const got: number[] = [];
    const settled: string[] = [];
    const a = requests.send(() => answer.promise, { onAnswer: (v) => void got.push(v), onSettled: () => void settled.push('a') });
    const b = requests.send(() => failure.promise, { onSettled: () => void settled.push('b') });
    state.currentId = 's2';
    answer.resolve(1);
    failure.reject(new Error('boom'));
    expect(await a).toBe(false);
    expect(await b).toBe(false);
    expect(got).toEqual([]);
    expect(settled).toEqual([]);
    expect(state.error).toBeNull();
  });

  it('a request not tied to a session (session: null) is applied whatever is open', async () => {
    const { state, requests } = host();
    const answer = held<number>();
    const got: number[] = [];
    const done = requests.send(() => answer.promise, { session: null, onAnswer: (v) => void got.push(v) });
    state.currentId = 's2';
    answer.resolve(3);
    await done;
    expect(got).toEqual([3]);
  });

  it('in one lane only the latest request is applied, whatever order the answers come in', async () => {
    const { requests } = host();
    const first = held<string>();
    const second = held<string>();
    const got: string[] = [];
    const a = requests.send(() => first.promise, { lane: 'chart', onAnswer: (v) => void got.push(v) });
    const b = requests.send(() => second.promise, { lane: 'chart', onAnswer: (v) => void got.push(v) });
    second.resolve('new');
    await b;
    first.resolve('old');
    await a;
    expect(got).toEqual(['new']);
  });

  it('lanes are independent, and supersede makes a lane stale without sending', async () => {
    const { requests } = host();
    const chart = held<string>();
    const fields = held<string>();
    const got: string[] = [];
    const a = requests.send(() => chart.promise, { lane: 'chart', onAnswer: (v) => void got.push(v) });
    const b = requests.send(() => fields.promise, { lane: 'fields', onAnswer: (v) => void got.push(v) });
    requests.supersede('chart');
    chart.resolve('chart');
    fields.resolve('fields');
    await Promise.all([a, b]);
    expect(got).toEqual(['fields']);
  });

  it("shows a current failure on the window's error line, or where onError puts it", async () => {
    const { state, requests } = host();
    await requests.send(() => Promise.reject(new Error('database is locked')));
    expect(state.error).toBe('database is locked');
    state.error = null;
    const shown: string[] = [];
    await requests.send(() => Promise.reject(new ApiError('bad_input', 'trigger: expected at most 1')), {
      onError: (m, e) => void shown.push(`${codeOf(e)}: ${m}`),
    });
    expect(shown).toEqual(['bad_input: trigger: expected at most 1']);
    expect(state.error).toBeNull();
  });

  it('never shows a cancelled request, but still settles it', async () => {
    const { state, requests } = host();
    const shown: string[] = [];
    let settled = 0;
    await requests.send(() => Promise.reject(new ApiError('cancelled', 'superseded')), {
      onError: (m) => void shown.push(m),
      onSettled: () => void settled++,
    });
    await requests.send(() => Promise.reject(new ApiError('cancelled', 'superseded')));
    expect(shown).toEqual([]);
    expect(state.error).toBeNull();
    expect(settled).toBe(1);
  });
});

describe('request helper: onEnd', () => {
  it('runs when the request ends, even when its answer was dropped', async () => {
    const { state, requests } = host();
    const answer = held<number>();
    const ended: string[] = [];
    const done = requests.send(() => answer.promise, { onEnd: () => void ended.push('end') });
    state.currentId = 's2';
    answer.resolve(1);
    expect(await done).toBe(false);
    expect(ended).toEqual(['end']);
  });
});

describe('request helper: describe and codeOf', () => {
  it("is the error's message, or the thrown value as text", () => {
    expect(describeError(new Error('no such session'))).toBe('no such session');
    expect(describeError(new ApiError('not_found', 'no such policy'))).toBe('no such policy');
    expect(describeError('plain')).toBe('plain');
    expect(describeError(42)).toBe('42');
  });
  it("is the contract's code of an ApiError, null for others", () => {
    expect(codeOf(new ApiError('cancelled', 'x'))).toBe('cancelled');
    expect(codeOf(new Error('x'))).toBeNull();
  });
});
