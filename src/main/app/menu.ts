/**
 * The application menu as a template (Electron's Menu.buildFromTemplate takes it). Built from
 * plain data and callbacks so it is tested without Electron; rebuilt when the recent files or
 * the theme change.
 */
import type { MenuItemConstructorOptions } from 'electron';
import { basename } from 'node:path';
import { THEMES, type Theme } from './prefs';

export interface MenuActions {
  open(): void;
  openRecent(path: string): void;
  clearRecent(): void;
  /** Agent logs (Claude Code projects, Codex sessions, Gemini CLI): shows the window's agent-logs panel. */
  importLogs(): void;
  exportCurrent(): void;
  setTheme(theme: Theme): void;
  openReadme(): void;
  openPoliciesDoc(): void;
}

export interface MenuState {
  readonly appName: string;
  readonly platform: NodeJS.Platform;
  readonly recent: readonly string[];
  readonly theme: Theme;
}

const THEME_LABELS: Record<Theme, string> = { system: 'Follow System', light: 'Light', dark: 'Dark' };

export function menuTemplate(state: MenuState, actions: MenuActions): MenuItemConstructorOptions[] {
  const mac = state.platform === 'darwin';
  const recent: MenuItemConstructorOptions[] = state.recent.length
    ? [
        ...state.recent.map((path) => ({ label: basename(path), sublabel: path, click: () => actions.openRecent(path) })),
        { type: 'separator' as const },
        { label: 'Clear Recent', click: () => actions.clearRecent() },
      ]
    : [{ label: 'No Recent Files', enabled: false }];
  const template: MenuItemConstructorOptions[] = [];
  if (mac) {
    template.push({
      label: state.appName,
      submenu: [
        { role: 'about' },
        { type: 'separator' },
        { role: 'services' },
        { type: 'separator' },
        { role: 'hide' },
        { role: 'hideOthers' },
        { role: 'unhide' },
        { type: 'separator' },
        { role: 'quit' },
      ],
    });
  }
  template.push(
    {
      label: '&File',
      submenu: [
        { label: 'Open…', accelerator: 'CmdOrCtrl+O', click: () => actions.open() },
        { label: 'Open Recent', submenu: recent },
        { label: 'Import Agent Logs…', accelerator: 'CmdOrCtrl+Shift+O', click: () => actions.importLogs() },
        { type: 'separator' },
        { label: 'Export…', accelerator: 'CmdOrCtrl+E', click: () => actions.exportCurrent() },
        { type: 'separator' },
        mac ? { role: 'close' } : { role: 'quit' },
      ],
    },
    {
      label: '&Edit',
      submenu: [
        { role: 'undo' },
        { role: 'redo' },
        { type: 'separator' },
        { role: 'cut' },
        { role: 'copy' },
        { role: 'paste' },
        { role: 'selectAll' },
      ],
    },
    {
      label: '&View',
      submenu: [
        { role: 'resetZoom' },
        { role: 'zoomIn' },
        { role: 'zoomOut' },
        { type: 'separator' },
        {
          label: 'Theme',
          submenu: THEMES.map((t) => ({
            label: THEME_LABELS[t],
            type: 'radio' as const,
            checked: state.theme === t,
            click: () => actions.setTheme(t),
          })),
        },
        { type: 'separator' },
        { role: 'togglefullscreen' },
        { role: 'reload' },
        { role: 'toggleDevTools' },
      ],
    },
    { role: 'windowMenu' },
    {
      role: 'help',
      submenu: [
        { label: 'Read Me', click: () => actions.openReadme() },
        { label: 'Policies', click: () => actions.openPoliciesDoc() },
      ],
    },
  );
  return template;
}
