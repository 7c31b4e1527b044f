/**
 * The live tail tells a JSON document from JSON lines as the import's detection does
 * (store/tail-shape.ts against core/import/sniff.ts's sniffSource + confirmSniff), from the bytes
 * alone, including the heads that cannot say: a document on one line longer than the head, a
 * document whose lines end in commas, JSON lines whose first line is longer than the head.
 */
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { confirmSniff, sniffSource } from '../../../src/core/import/sniff';
import { fileSource } from '../../../src/main/io/file-source';
import { isJsonDocument } from '../../../src/main/store/tail-shape';
import { tempStoreEach } from '../../helpers/temp-store';

const t = tempStoreEach('ctxscope-tailshape-');

const long = (n: number): string => 'x'.repeat(n);
const event = (i: number, text = long(300)): Record<string, unknown> => ({
  id: i,
  source: 'agent',
  action: 'run',
  args: { command: text },
});
const events = (n: number, text?: string): Record<string, unknown>[] => Array.from({ length: n }, (_, i) => event(i, text));
const instance = (n: number) => ({
  instance_id: 'acme__x-1',
  metadata: { llm_config: { native_tool_calling: true } },
  history: events(n),
  metrics: { token_usages: [] },
});

const cases: [string, string][] = [
  ['a one-line eval instance longer than the head', JSON.stringify(instance(400))],
  ['the same with a newline at its end, and blank lines after it', JSON.stringify(instance(400)) + '\n\n  \n'],
  [
    'a document whose elements sit one per line, ending in commas',
    `{"instance_id":"a","history":[\n${events(400)
      .map((e) => JSON.stringify(e))
      .join(',\n')}\n],"metrics":{}}\n`,
  ],
  ['a pretty-printed document longer than the head', JSON.stringify(instance(300), null, 2)],
  ['JSON lines whose first line is longer than the head', `${JSON.stringify(instance(400))}\n${JSON.stringify(instance(2))}\n`],
  ['JSON lines whose second line is longer than the head', `${JSON.stringify(instance(2))}\n${JSON.stringify(instance(400))}\n`],
  [
    'short JSON lines',
    events(30)
      .map((e) => JSON.stringify(e))
      .join('\n') + '\n',
  ],
  ['a long first line that is not JSON, then another', `{"a":"${long(70_000)}"\n{"b":1}\n`],
  ['a long first line then a line of Unicode spaces', `${JSON.stringify(instance(400))}\n\u00a0\u2003\n`],
  ['a long first line then a line starting with a Unicode space', `${JSON.stringify(instance(400))}\n\u00a0{"b":1}\n`],
  ['a short document', JSON.stringify(instance(2))],
  // Past the longest head detection reads (16 MB): the first line is parsed to tell.
  ['JSON lines whose first line is longer than any head', `{"a":"${long(17 << 20)}"}\n{"b":1}\n`],
  ['a broken first line longer than any head, then another', `{"a":"${long(17 << 20)}"\n{"b":1}\n`],
];

describe('the tail reads a file as one document or as JSON lines as the import does', () => {
  // Some cases hold a first line longer than the 16 MB head, past the import's 10 MiB line
  // bound (src/core/import/read.ts MAX_LINE_BYTES): raised, as a user may, to test the reading.
  beforeAll(() => vi.stubEnv('CTXSCOPE_MAX_LINE_MB', '64'));
  afterAll(() => vi.unstubAllEnvs());
  it.each(cases)('%s', async (_name, text) => {
    const file = join(t.dir, 'f.json');
    writeFileSync(file, text);
    const size = Buffer.byteLength(text);
    const source = fileSource(file, size);
    const imported = (await confirmSniff(source, await sniffSource(source)).catch(() => ({ shape: 'json' as const }))).shape === 'json';
    expect(await isJsonDocument(file, size)).toBe(imported);
    expect(await isJsonDocument(file, size, Buffer.from(text))).toBe(imported);
  });
});
