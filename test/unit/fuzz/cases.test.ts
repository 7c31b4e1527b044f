/**
 * Inputs the fuzz suite (import.fuzz.test.ts) found to fail, kept as files in ./cases: each must
 * go on ending in the outcome written here, read in chunks of any size.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { importOutcome } from './outcome';

const CASES: Record<string, string> = {
  // anthropic-request.json (1,016 bytes, 12 newline-ended lines, the last one "}") with e2 82 (two
  // bytes of a three-byte character) put before its last byte: the cut character starts at byte
  // 1015, on line 12 after its "}" (column 2). Was "near byte 1015" (no line) when the character's bytes
  // arrived in chunks of their own before the newline that cuts it short.
  'cut-character-at-end.json': 'cut-character-at-end.json:12:2: valid UTF-8 text, found an invalid byte sequence at byte 1015 (0xe2)',
};

describe('fuzz regressions', () => {
  for (const [file, expected] of Object.entries(CASES)) {
    it(file, async () => {
      const bytes = new Uint8Array(readFileSync(join(__dirname, 'cases', file)));
      for (const step of [1, 2, 3, 7, 4096]) expect(await importOutcome(file, bytes, step)).toEqual({ error: expected });
    });
  }
});
