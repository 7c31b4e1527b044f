/** The outcome of importing one fuzz input: sessions, or one clear error; anything else throws. */
import { expect } from 'vitest';
import { importSource } from '../../../src/core/import/index';
import { ImportError, type ByteSource } from '../../../src/core/import/types';
import { countWith } from '../../../src/core/tokens/index';

/** The bytes in chunks of `step`, so chunk boundaries fall anywhere. */
function bytesSource(name: string, bytes: Uint8Array, step: number): ByteSource {
  return {
    name,
    size: bytes.length,
    async *chunks() {
      for (let i = 0; i < bytes.length; i += step) yield bytes.subarray(i, i + step);
    },
  };
}

/** One input must settle within this (a hang, not a slow run: inputs are at most a few MB). */
const SETTLE_MS = 20_000;

export type Outcome = { readonly sessions: number } | { readonly error: string };

/** Imports one input; resolves with what happened, throws on anything that is not an outcome. */
export async function importOutcome(name: string, bytes: Uint8Array, step = 4096): Promise<Outcome> {
  let timer: NodeJS.Timeout | undefined;
  const hang = new Promise<never>(
    (_, reject) => (timer = setTimeout(() => reject(new Error(`${name}: no outcome after ${SETTLE_MS} ms (a hang)`)), SETTLE_MS)),
  );
  try {
    const run = importSource(bytesSource(name, bytes, step)).then((out) => {
      // What the app does next with a session must not fail on it either.
      for (const s of out.sessions) countWith(s, 'chars4');
      return { sessions: out.sessions.length };
    });
    return await Promise.race([run, hang]);
  } catch (e) {
    if (!(e instanceof ImportError)) throw e;
    // One clear error: it names the file first (then line and column where there is one).
    expect(e.message.startsWith(`${name}:`) || e.message.startsWith(`${name} `)).toBe(true);
    if (/valid JSON \(/.test(e.message)) expect(e.message).toMatch(/^[^:]+(?:\/[^:]+)?:\d+(?::\d+)?: /);
    return { error: e.message };
  } finally {
    clearTimeout(timer);
  }
}
