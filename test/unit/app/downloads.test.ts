/** The desktop app's save dialog for what the window saves (app/downloads.ts), with a fake download item. */
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { askWhereToSave, type DownloadItemLike, type SaveDialogOptionsLike } from '../../../src/main/app/downloads';

function fakeItem(url: string, name: string) {
  const seen: { options: SaveDialogOptionsLike | null; cancelled: boolean } = { options: null, cancelled: false };
  const item: DownloadItemLike = {
    getURL: () => url,
    getFilename: () => name,
    setSaveDialogOptions: (o) => void (seen.options = o),
    cancel: () => void (seen.cancelled = true),
  };
  return { item, seen };
}

describe('askWhereToSave', () => {
  it("opens the native save dialog on the downloads folder with the export dialog's file name and its extension", () => {
    const { item, seen } = fakeItem('blob:file:///3f1c-…', 'orders-service.claude-code.call-23.jsonl');
    expect(askWhereToSave(item, '/home/ana/Downloads')).toBe(true);
    expect(seen.cancelled).toBe(false);
    expect(seen.options).toEqual({
      title: 'Save',
      defaultPath: join('/home/ana/Downloads', 'orders-service.claude-code.call-23.jsonl'),
      buttonLabel: 'Save',
      filters: [
        { name: 'JSONL file', extensions: ['jsonl'] },
        { name: 'All files', extensions: ['*'] },
      ],
    });
  });

  it('a name without an extension still gets a dialog (any file)', () => {
    const { item, seen } = fakeItem('blob:http://localhost:5173/x', 'notes');
    askWhereToSave(item, '/d');
    expect(seen.options?.defaultPath).toBe(join('/d', 'notes'));
    expect(seen.options?.filters).toEqual([{ name: 'All files', extensions: ['*'] }]);
  });

  it('cancels a download that is not a file the window made', () => {
    const { item, seen } = fakeItem('https://example.com/payload.exe', 'payload.exe');
    expect(askWhereToSave(item, '/d')).toBe(false);
    expect(seen.cancelled).toBe(true);
    expect(seen.options).toBeNull();
  });
});
