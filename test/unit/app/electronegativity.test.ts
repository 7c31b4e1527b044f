/** The electronegativity gate's rules (scripts/electronegativity.mjs), without running the scan. */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { describe, expect, it } from 'vitest';

interface Finding {
  id: string;
  severity: string;
  file: string;
}
interface Gate {
  ACCEPTED_FILE: string;
  loadAccepted(text?: string): { id: string; file: string; reason: string }[];
  unaccepted(issues: Finding[], accepted: { id: string; file: string }[]): Finding[];
}
const root = join(__dirname, '..', '..', '..');
const gate = async (): Promise<Gate> => (await import(pathToFileURL(join(root, 'scripts', 'electronegativity.mjs')).href)) as Gate;

describe('electronegativity gate', () => {
  it('fails HIGH and MEDIUM findings unless accepted for that file; LOW never fails', async () => {
    const { unaccepted } = await gate();
    const accepted = [{ id: 'PRELOAD_JS_CHECK', file: 'src/main/index.ts' }];
    const issues: Finding[] = [
      { id: 'PRELOAD_JS_CHECK', severity: 'MEDIUM', file: 'src/main/index.ts' },
      { id: 'PRELOAD_JS_CHECK', severity: 'MEDIUM', file: 'src/main/other.ts' },
      { id: 'LIMIT_NAVIGATION_GLOBAL_CHECK', severity: 'HIGH', file: 'N/A' },
      { id: 'CSP_GLOBAL_CHECK', severity: 'LOW', file: 'out/renderer/index.html' },
    ];
    expect(unaccepted(issues, accepted).map((i) => `${i.id}@${i.file}`)).toEqual([
      'PRELOAD_JS_CHECK@src/main/other.ts',
      'LIMIT_NAVIGATION_GLOBAL_CHECK@N/A',
    ]);
  });

  it('every accepted finding carries a written reason; one without is refused', async () => {
    const { loadAccepted, ACCEPTED_FILE } = await gate();
    const list = loadAccepted(readFileSync(ACCEPTED_FILE, 'utf8'));
    expect(list.length).toBeGreaterThan(0);
    expect(() => loadAccepted(JSON.stringify([{ id: 'X', file: 'y', reason: 'ok' }]))).toThrow(/written reason/);
    expect(() => loadAccepted('{}')).toThrow(/expected an array/);
  });
});
