/** The announcement of a host-started import: the file's name (not its folder), or "N files", and the bytes to come. */
import { describe, expect, it } from 'vitest';
import { hostImportAnnouncement } from '../../../src/main/host/host-import';

describe('hostImportAnnouncement', () => {
  const sizes: Record<string, number> = { '/home/ana/logs/a.jsonl': 100, '/home/ana/logs/b.jsonl': 50 };
  it('names one file by its name and totals its size', () => {
    expect(hostImportAnnouncement('j1', ['/home/ana/logs/a.jsonl'], (p) => sizes[p]!)).toEqual({
      jobId: 'j1',
      file: 'a.jsonl',
      totalBytes: 100,
    });
  });
  it('counts several files', () => {
    expect(hostImportAnnouncement('j2', Object.keys(sizes), (p) => sizes[p]!)).toEqual({ jobId: 'j2', file: '2 files', totalBytes: 150 });
  });
});
