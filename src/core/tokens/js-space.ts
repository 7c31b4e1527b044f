/**
 * JavaScript's `\s` as a char-code test: the o200k and cl100k split patterns separate pieces at
 * it, so both the BPE's long-run guard (bpe.ts) and the summary's exact cut points
 * (replay/summary-tokens.ts) must agree with it character for character.
 */
export function isJsSpace(c: number): boolean {
  return (
    c === 32 ||
    (c >= 9 && c <= 13) ||
    c === 0xa0 ||
    c === 0x1680 ||
    (c >= 0x2000 && c <= 0x200a) ||
    c === 0x2028 ||
    c === 0x2029 ||
    c === 0x202f ||
    c === 0x205f ||
    c === 0x3000 ||
    c === 0xfeff
  );
}
