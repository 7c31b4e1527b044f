/**
 * File › Export…: a save dialog whose file types are the export targets; the chosen type's
 * export of the current view (current-view.ts) at the end of the replay is written to disk.
 */
import type { ExportTarget, Handlers } from '../../shared/api';
import type { CurrentView } from './current-view';

export const EXPORT_FILTERS: readonly { readonly name: string; readonly extensions: string[]; readonly to: ExportTarget }[] = [
  { name: 'OpenAI messages (JSON)', extensions: ['json'], to: 'openai' },
  { name: 'Anthropic messages (JSON)', extensions: ['json'], to: 'anthropic' },
  { name: 'JSON lines', extensions: ['jsonl'], to: 'jsonl' },
  { name: 'Markdown', extensions: ['md'], to: 'markdown' },
  { name: 'Replay report (JSON)', extensions: ['json'], to: 'report-json' },
  { name: 'Replay report (CSV)', extensions: ['csv'], to: 'report-csv' },
];

/** The target a saved file name asks for: by extension, the first filter that has it (OpenAI for .json). */
export function targetForFile(path: string): ExportTarget {
  const ext = path.toLowerCase().split('.').pop() ?? '';
  return EXPORT_FILTERS.find((f) => f.extensions.includes(ext))?.to ?? 'openai';
}

export interface ExportDeps {
  readonly handlers: Pick<Handlers, 'exportSession'>;
  readonly current: () => Readonly<CurrentView>;
  /** Resolves with the chosen path, or undefined when cancelled. */
  readonly askPath: (suggestedName: string) => Promise<string | undefined>;
  readonly writeFile: (path: string, text: string) => Promise<void>;
  readonly showError: (message: string) => void;
}

export async function exportCurrentView(deps: ExportDeps): Promise<string | undefined> {
  const view = deps.current();
  if (!view.sessionId) {
    deps.showError('Open a session first: there is nothing to export yet.');
    return undefined;
  }
  const path = await deps.askPath(`${view.policy ?? 'session'}.end.openai.json`);
  if (!path) return undefined;
  try {
    const r = await deps.handlers.exportSession({ sessionId: view.sessionId, ...(view.policy ? { policy: view.policy } : {}), overrides: view.overrides, at: 'end', to: targetForFile(path), redact: false, redactPatterns: [] });
    await deps.writeFile(path, r.text);
    return path;
  } catch (e) {
    deps.showError(`Export failed: ${e instanceof Error ? e.message : String(e)}`);
    return undefined;
  }
}
