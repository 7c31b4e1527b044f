/** Export file names: one extension, no path, no device name, no disguised extension, unicode kept. */
import { describe, expect, it } from 'vitest';
import { exportFileName, sanitizeStem, withExtension } from '../../../src/core/export/file-name';

describe('export file names', () => {
  it('never doubles an extension (a title that is the source file name)', () => {
    expect(exportFileName({ title: 'session-41.jsonl', format: 'jsonl', extension: 'jsonl' })).toBe('session-41.jsonl');
    expect(exportFileName({ title: 'session-41.jsonl', format: 'openai', extension: 'json' })).toBe('session-41.openai.json');
    expect(exportFileName({ title: 'notes.JSON.jsonl', format: 'markdown', extension: 'md' })).toBe('notes.md');
    expect(withExtension('mine.json', 'json')).toBe('mine.json');
    expect(withExtension('mine', '.json')).toBe('mine.json');
    expect(withExtension('mine.jsonl', 'json')).toBe('mine.json');
  });

  it('names the policy, the call and the format where the extension does not say it', () => {
    expect(exportFileName({ title: 'Fix the login bug', policy: 'claude-code', call: 412, format: 'openai', extension: 'json' })).toBe(
      'Fix the login bug.claude-code.call-412.openai.json',
    );
    expect(exportFileName({ title: 'Fix the login bug', policy: 's3', report: true, extension: 'csv' })).toBe(
      'Fix the login bug.s3.report.csv',
    );
  });

  it('keeps unicode (NFC) and cuts long titles on a code point, not inside a surrogate pair', () => {
    expect(sanitizeStem('Re\u0301sumé 日本語 ✓')).toBe('Résumé 日本語 ✓');
    const long = '😀'.repeat(100);
    const s = sanitizeStem(long);
    expect(Array.from(s)).toHaveLength(60);
    expect(s).toBe('😀'.repeat(60));
  });

  it('turns path separators and characters Windows refuses into dashes, and drops leading dots', () => {
    expect(sanitizeStem('../../etc/passwd')).toBe('etc-passwd');
    expect(sanitizeStem('C:\\Users\\me\\a<b>:c"d|e?f*g')).toBe('C-Users-me-a-b-c-d-e-f-g');
    expect(exportFileName({ title: '/home/me/.ssh/id_rsa', extension: 'md' })).toBe('home-me-.ssh-id_rsa.md');
    expect(sanitizeStem('line\nbreak\ttab\u0000nul')).toBe('line-break-tab-nul');
  });

  it('drops bidi overrides that would disguise the extension', () => {
    // U+202E would display "report‮gpj.exe" as "reportexe.jpg".
    expect(withExtension('report\u202Egpj.exe', 'md')).toBe('report-gpj.exe.md');
  });

  it('prefixes Windows device names, whatever follows the first dot', () => {
    expect(exportFileName({ title: 'CON', extension: 'md' })).toBe('_CON.md');
    expect(exportFileName({ title: 'nul', policy: 's3', report: true, extension: 'json' })).toBe('_nul.s3.report.json');
    expect(withExtension('lpt1.txt', 'csv')).toBe('_lpt1.csv');
    expect(sanitizeStem('console')).toBe('console');
  });

  it('falls back when nothing is left, and never ends in a dot or a space', () => {
    expect(exportFileName({ title: '...', extension: 'json', format: 'openai' })).toBe('session.openai.json');
    expect(withExtension('  ', 'md')).toBe('export.md');
    expect(sanitizeStem('title. . ')).toBe('title');
  });
});
