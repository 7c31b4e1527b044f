/**
 * The secret scanner behind `export --redact` (CLI and app): secretlint's recommended rule set,
 * maintained upstream, so new credential formats arrive with an update instead of a hand-written
 * regex. Core's redactor (src/core/export/redact.ts) takes it as a plain function.
 *
 * Two adjustments, both because transcripts are untrusted:
 * - a transcript could say `secretlint-disable` to switch the scan off for what follows; the
 *   directive is defused (same length, so offsets hold) before scanning;
 * - the AWS secret-key rule reports a range that starts at the key's NAME with the length of the
 *   key, which would leave most of the key in place; where a finding's data carries the secret
 *   itself, the secret's own position is used.
 * AWS access key ids are scanned too (the preset leaves them off by default).
 */
import { lintSource } from '@secretlint/core';
import { creator } from '@secretlint/secretlint-rule-preset-recommend';
import type { SecretFinding, SecretScanner } from '../core/export/redact';

const CONFIG = {
  rules: [
    {
      id: '@secretlint/secretlint-rule-preset-recommend',
      rule: creator,
      rules: [{ id: '@secretlint/secretlint-rule-aws', options: { enableIDScanRule: true } }],
    },
  ],
};

const DIRECTIVE = /secretlint-(disable|enable)/gi;

/** `@secretlint/secretlint-rule-github` → `github`. */
const kindOf = (ruleId: string): string => ruleId.replace(/^@secretlint\/secretlint-rule-/, '');

export const secretlintScanner: SecretScanner = async (text) => {
  const content = text.replace(DIRECTIVE, (m) => m.replace('-', '_'));
  const result = await lintSource({
    source: { content, filePath: 'export.txt', ext: '.txt', contentType: 'text' },
    options: { config: CONFIG, noPhysicFilePath: true, maskSecrets: false },
  });
  const out: SecretFinding[] = [];
  for (const m of result.messages) {
    const [start, end] = m.range;
    const kind = kindOf(m.ruleId);
    const values = Object.values((m.data ?? {}) as Record<string, unknown>).filter(
      (v): v is string => typeof v === 'string' && v.length >= 8,
    );
    let placed = false;
    for (const v of values) {
      // The secret itself, at or just after the reported start (see the header).
      const at = content.indexOf(v, start);
      if (at >= 0 && at <= end) {
        out.push({ start: at, end: at + v.length, kind });
        placed = true;
      }
    }
    if (!placed) out.push({ start, end, kind });
  }
  return out;
};
