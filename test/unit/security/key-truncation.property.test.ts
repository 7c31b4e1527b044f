/**
 * A private key cut anywhere is still redacted whole: fast-check cuts real keys (RSA, EC P-256,
 * Ed25519, encrypted, OpenSSH, PGP — test/fixtures/secrets) at any point, with or without their
 * END line, between arbitrary text, in a message, in JSON tool arguments and in arguments that
 * are not JSON, and finds no piece of the key body in any export target.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { exportRedacted, sessionInput, TRANSCRIPT_TARGETS } from '../../../src/core/export/index';
import { privateKeyBlocks } from '../../../src/core/export/key-blocks';
import { secretlintScanner } from '../../../src/main/secret-scan';
import { KEY_FILES, KEYS, keyBody } from '../../fixtures/secrets/corpus';
import { call, msg, result, session, user } from '../../helpers/session';

/** Text around a key: anything but base64 runs long enough to be confused with a key's own (8+). */
const prose = fc.string({ unit: fc.constantFrom(...'ab cd.,:;!?\n\t()"\'é中-'.split('')), maxLength: 40 });

interface Cut {
  readonly file: (typeof KEY_FILES)[number];
  readonly at: number;
  readonly end: boolean;
  readonly before: string;
  readonly after: string;
}

const cuts = fc
  .record({
    file: fc.constantFrom(...KEY_FILES),
    frac: fc.double({ min: 0, max: 1, noNaN: true }),
    end: fc.boolean(),
    before: prose,
    after: prose,
  })
  .map(({ file, frac, end, before, after }): Cut => ({ file, at: Math.floor(frac * KEYS[file].length), end, before, after }));

/** What the cut keeps of the key, and the pieces of its body (8+ characters) that must not survive. */
function cutText(c: Cut): { text: string; pieces: string[] } {
  const key = KEYS[c.file];
  const kept = key.slice(0, c.at);
  const endLine = key.split('\n').pop()!;
  const text = `${c.before}${kept}${c.end && !kept.endsWith(endLine) ? `\n${endLine}` : ''}${c.after}`;
  // The body lines the cut kept, the last one possibly partial.
  const pieces = keyBody(kept).filter((l) => l.length >= 8);
  return { text, pieces };
}

describe('truncated private keys', () => {
  it('the finder covers every piece of body a cut keeps', () => {
    fc.assert(
      fc.property(cuts, (c) => {
        const { text, pieces } = cutText(c);
        const blocks = privateKeyBlocks(text);
        let left = '';
        let at = 0;
        for (const [s, e] of blocks) {
          left += text.slice(at, s) + '\u0000';
          at = e;
        }
        left += text.slice(at);
        for (const p of pieces) expect(left.includes(p), `"${p}" of ${c.file} cut at ${c.at}`).toBe(false);
      }),
      { numRuns: 2000 },
    );
  });

  it('no piece survives in any export target, wherever the key sits', async () => {
    await fc.assert(
      fc.asyncProperty(cuts, async (c) => {
        const { text, pieces } = cutText(c);
        const s = session(
          [
            user(text),
            msg('assistant', [call('c1', 'Bash', JSON.stringify({ command: text })), call('c2', 'Raw', `{"unclosed": "${text}`)]),
            msg('user', [result('c1', text), result('c2', 'ok')]),
          ],
          { systemPrompt: text },
        );
        for (const target of TRANSCRIPT_TARGETS) {
          const e = await exportRedacted(sessionInput(s), target, { title: 'cut' });
          for (const p of pieces) expect(e.text.includes(p), `"${p}" of ${c.file} cut at ${c.at} in ${target}`).toBe(false);
        }
      }),
      { numRuns: 150 },
    );
  });

  it('the same with the scanner the CLI and the app add', async () => {
    await fc.assert(
      fc.asyncProperty(cuts, async (c) => {
        const { text, pieces } = cutText(c);
        const s = session([user(text), msg('assistant', [call('c1', 'Bash', JSON.stringify({ command: text }))])]);
        for (const target of TRANSCRIPT_TARGETS) {
          const e = await exportRedacted(sessionInput(s), target, { title: 'cut', scanner: secretlintScanner });
          for (const p of pieces) expect(e.text.includes(p), `"${p}" of ${c.file} cut at ${c.at} in ${target}`).toBe(false);
        }
      }),
      { numRuns: 40 },
    );
  }, 60_000);

  it('finds blocks in time linear in the text (many BEGIN lines and no END)', () => {
    // Each BEGIN must not search the whole rest of the text again: 20,000 of them in 600 KB.
    const text = '-----BEGIN PRIVATE KEY-----\nAAAA\n'.repeat(20_000);
    expect(privateKeyBlocks(text)).toHaveLength(20_000);
  });
});
