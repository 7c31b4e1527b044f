/**
 * Private key blocks in a text, found by hand rather than by one regex: a block is replaced
 * whole however it reaches a transcript — complete, cut short (an agent ran `head -5 id_rsa`: no
 * END line), with a short body, encrypted, in any algorithm (RSA, EC, Ed25519, DSA, PKCS#8,
 * `ENCRYPTED`, OpenSSH, PGP armour) — and whatever its body starts with (an EC or
 * Ed25519 key's body does not start `MI` as an RSA one does).
 *
 * A block begins at `-----BEGIN <label>PRIVATE KEY-----` (or `PRIVATE KEY BLOCK`, PGP's label).
 * It ends at the first `-----END …-----` after it when that comes before the next `-----BEGIN`;
 * else (a truncated key) it runs over what still looks like key material: armour headers
 * (`Proc-Type:`, `DEK-Info:`, `Version:`, `Comment:`), blank lines before the body, and lines of
 * base64 — on a line that is not all base64, its leading base64 run is taken and the block ends.
 * Lines are broken by real newlines or by the two characters `\n` (a JSON string seen raw).
 *
 * Every position is looked at a bounded number of times, so the scan is linear in the text.
 */

const BEGIN = '-----BEGIN ';
const END = '-----END ';
/** The longest label considered (`ENCRYPTED PRIVATE KEY`, `OPENSSH PRIVATE KEY`, `PGP PRIVATE KEY BLOCK` are far shorter). */
const MAX_LABEL = 64;

const isLabelChar = (c: number): boolean => (c >= 65 && c <= 90) || (c >= 48 && c <= 57) || c === 32;
const isBase64 = (c: number): boolean =>
  (c >= 65 && c <= 90) || (c >= 97 && c <= 122) || (c >= 48 && c <= 57) || c === 43 || c === 47 || c === 61;
const isBlank = (c: number): boolean => c === 32 || c === 9;

/** The end of the BEGIN line's label and dashes when it names a private key, else -1. `at` points past `-----BEGIN `. */
function headerEnd(text: string, at: number): number {
  let i = at;
  while (i < text.length && i - at <= MAX_LABEL && isLabelChar(text.charCodeAt(i))) i++;
  const label = text.slice(at, i);
  if (!/PRIVATE KEY(?: BLOCK)?\s*$/.test(label)) return -1;
  // The closing dashes (any number, or none when the text was cut right after the label).
  while (i < text.length && text.charCodeAt(i) === 45) i++;
  return i;
}

/** Length of a line break at `i` (real, or the escaped `\n` / `\r\n` of a raw JSON string), else 0. */
function breakAt(text: string, i: number): number {
  const c = text.charCodeAt(i);
  if (c === 10) return 1;
  if (c === 13) return text.charCodeAt(i + 1) === 10 ? 2 : 1;
  if (c === 92) {
    const d = text.charCodeAt(i + 1);
    if (d === 110) return 2;
    if (d === 114) return text.charCodeAt(i + 2) === 92 && text.charCodeAt(i + 3) === 110 ? 4 : 2;
  }
  return 0;
}

/** Where the line starting at `i` ends (before its break, or the text's end). */
function lineEnd(text: string, i: number): number {
  let j = i;
  while (j < text.length && breakAt(text, j) === 0) j++;
  return j;
}

const HEADER_LINE = /^[ \t]*[A-Za-z][A-Za-z0-9-]*:[ \t]/;

/** The end of a block cut short: the key material that follows its BEGIN line (see the header). */
function truncatedEnd(text: string, from: number): number {
  let end = from;
  let i = from;
  let body = false;
  while (i <= text.length) {
    const e = lineEnd(text, i);
    const line = text.slice(i, e);
    let k = 0;
    while (k < line.length && isBlank(line.charCodeAt(k))) k++;
    if (k === line.length) {
      // Blank lines before the body (after armour headers, or PGP's right after BEGIN) belong to
      // the block; one after body lines ends it.
      if (!body) end = e;
      else break;
    } else if (!body && HEADER_LINE.test(line)) {
      end = e;
    } else {
      let j = k;
      while (j < line.length) {
        // A run of base64, and on one line further runs when they are long (a key pasted with
        // spaces for newlines); prose after a cut is left.
        while (j < line.length && isBase64(line.charCodeAt(j))) j++;
        let s = j;
        while (s < line.length && isBlank(line.charCodeAt(s))) s++;
        let r = s;
        while (r < line.length && isBase64(line.charCodeAt(r))) r++;
        if (s > j && r - s >= 20 && (r === line.length || isBlank(line.charCodeAt(r)))) j = s;
        else break;
      }
      if (j === k) break;
      body = true;
      end = i + j;
      // A line that is not all key material ends the block where the material ends.
      let t = j;
      while (t < line.length && isBlank(line.charCodeAt(t))) t++;
      if (t < line.length) break;
    }
    if (e >= text.length) break;
    i = e + breakAt(text, e);
  }
  return end;
}

/** [start, end) of every private key block in `text`, left to right, not overlapping. */
export function privateKeyBlocks(text: string): Array<readonly [number, number]> {
  const out: Array<readonly [number, number]> = [];
  if (!text.includes('PRIVATE KEY')) return out;
  // Cursors into the text that only move forward, so that no search is repeated (linear time).
  let nextEnd = -2;
  let nextBegin = -2;
  const endFrom = (i: number): number => (nextEnd === -1 || (nextEnd >= i && nextEnd !== -2) ? nextEnd : (nextEnd = text.indexOf(END, i)));
  const beginFrom = (i: number): number =>
    nextBegin === -1 || (nextBegin >= i && nextBegin !== -2) ? nextBegin : (nextBegin = text.indexOf(BEGIN, i));
  let from = 0;
  for (;;) {
    const start = beginFrom(from);
    if (start < 0) break;
    const h = headerEnd(text, start + BEGIN.length);
    if (h < 0) {
      from = start + BEGIN.length;
      continue;
    }
    const end = endFrom(h);
    const following = beginFrom(h);
    let stop: number;
    if (end >= 0 && (following < 0 || end < following)) {
      // The END line, through its closing dashes.
      let j = end + END.length;
      while (j < text.length && j - end <= MAX_LABEL + END.length && isLabelChar(text.charCodeAt(j))) j++;
      while (j < text.length && text.charCodeAt(j) === 45) j++;
      stop = j;
    } else stop = Math.max(h, truncatedEnd(text, h));
    out.push([start, stop]);
    from = stop;
  }
  return out;
}
