/** The application menu template, without Electron. */
import type { MenuItemConstructorOptions } from 'electron';
import { describe, expect, it } from 'vitest';
import { menuTemplate, type MenuActions } from '../../../src/main/app/menu';

function recorder(): { actions: MenuActions; calls: string[] } {
  const calls: string[] = [];
  const actions: MenuActions = {
    open: () => calls.push('open'),
    openRecent: (p) => calls.push(`recent:${p}`),
    clearRecent: () => calls.push('clear'),
    importLogs: () => calls.push('import'),
    exportCurrent: () => calls.push('export'),
    setTheme: (t) => calls.push(`theme:${t}`),
    openReadme: () => calls.push('readme'),
    openPoliciesDoc: () => calls.push('policies'),
  };
  return { actions, calls };
}

const sub = (items: MenuItemConstructorOptions[], label: string): MenuItemConstructorOptions[] => {
  const item = items.find((i) => i.label === label || i.role === label);
  if (!item) throw new Error(`no menu ${label}`);
  return item.submenu as MenuItemConstructorOptions[];
};
const click = (item: MenuItemConstructorOptions | undefined): void => (item!.click as () => void)();

describe('menuTemplate', () => {
  it('File: Open, Open Recent with the recent files, Import agent logs, Export', () => {
    const { actions, calls } = recorder();
    const t = menuTemplate({ appName: 'Context Scope', platform: 'linux', recent: ['/p/a.jsonl', '/p/b.jsonl'], theme: 'system' }, actions);
    const file = sub(t, '&File');
    click(file.find((i) => i.label === 'Open…'));
    click(file.find((i) => i.label === 'Import Agent Logs…'));
    click(file.find((i) => i.label === 'Export…'));
    const recent = sub(file, 'Open Recent');
    expect(recent.slice(0, 2).map((i) => i.label)).toEqual(['a.jsonl', 'b.jsonl']);
    click(recent[1]);
    click(recent.find((i) => i.label === 'Clear Recent'));
    expect(calls).toEqual(['open', 'import', 'export', 'recent:/p/b.jsonl', 'clear']);
    expect(file.some((i) => i.role === 'quit')).toBe(true);
    expect(t[0]!.label).toBe('&File');
  });

  it('an empty Open Recent says so, disabled', () => {
    const t = menuTemplate({ appName: 'Context Scope', platform: 'win32', recent: [], theme: 'system' }, recorder().actions);
    expect(sub(sub(t, '&File'), 'Open Recent')).toEqual([{ label: 'No Recent Files', enabled: false }]);
  });

  it('View: zoom roles and the theme as radio items with the current one checked', () => {
    const { actions, calls } = recorder();
    const view = sub(menuTemplate({ appName: 'Context Scope', platform: 'linux', recent: [], theme: 'dark' }, actions), '&View');
    expect(view.filter((i) => i.role).map((i) => i.role)).toEqual(expect.arrayContaining(['resetZoom', 'zoomIn', 'zoomOut']));
    const theme = sub(view, 'Theme');
    expect(theme.map((i) => [i.label, i.type, i.checked])).toEqual([
      ['Follow System', 'radio', false],
      ['Light', 'radio', false],
      ['Dark', 'radio', true],
    ]);
    click(theme[1]);
    expect(calls).toEqual(['theme:light']);
  });

  it('Help opens the README; macOS gets the app menu first', () => {
    const { actions, calls } = recorder();
    const t = menuTemplate({ appName: 'Context Scope', platform: 'darwin', recent: [], theme: 'system' }, actions);
    expect(t[0]!.label).toBe('Context Scope');
    click(sub(t, 'help').find((i) => i.label === 'Read Me'));
    expect(calls).toEqual(['readme']);
  });
});
