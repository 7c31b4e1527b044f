/**
 * The export dialog's state: open or not, the user's choices, the host's preview of the export
 * those choices make (file name, messages, redactions by kind, bad pattern lines), and the save.
 * The compacted history is taken where the window is: the chart's policy and overrides at the
 * selected call (docs/architecture.md: one selection drives the window).
 */
import type { StoreApi } from 'zustand/vanilla';
import {
  REDACTION_BUILTINS,
  type ApiClient,
  type ExportPreview,
  type ExportResult,
  type ExportTarget,
  type MethodInput,
} from '../../../shared/api';
import { createRequests } from './request';

/** What is exported: the session as the agent had it, the window at the selected call, or the replay report. */
export type ExportWhat = 'original' | 'window' | 'report';
export type RedactionBuiltin = (typeof REDACTION_BUILTINS)[number];

/** The formats that make sense for each kind of export. */
export const FORMATS_FOR: Readonly<Record<ExportWhat, readonly ExportTarget[]>> = {
  original: ['openai', 'anthropic', 'jsonl', 'markdown'],
  window: ['openai', 'anthropic', 'jsonl', 'markdown'],
  report: ['report-json', 'report-csv'],
};

export interface ExportChoice {
  readonly what: ExportWhat;
  readonly to: ExportTarget;
  readonly redact: boolean;
  readonly builtins: readonly RedactionBuiltin[];
  /** The user's patterns, one per line as typed (blank lines are ignored). */
  readonly patterns: string;
}

export const DEFAULT_CHOICE: ExportChoice = { what: 'window', to: 'openai', redact: true, builtins: REDACTION_BUILTINS, patterns: '' };

export interface ExportSlice {
  exportOpen: boolean;
  exportChoice: ExportChoice;
  exportPreview: ExportPreview | null;
  exportPreviewError: string | null;
  /** A preview for newer choices is on its way: Save waits, so the file name always fits the choices. */
  exportPending: boolean;
  openExport(): void;
  closeExport(): void;
  /** Changes the choices (a format that does not fit the new "what" becomes that kind's first) and previews again. */
  setExportChoice(patch: Partial<ExportChoice>): Promise<void>;
  previewExport(): Promise<void>;
  /** The export as the host writes it; null (with the error shown) when it failed. */
  saveExport(): Promise<ExportResult | null>;
  /** Opens the dialog when the desktop menu's File ▸ Export… asks; returns the unsubscribe. */
  watchExportMenu(): () => void;
}

/** The slice reads these from the rest of the store. */
interface Reads {
  currentId: string | null;
  chartFor: { readonly policy: string; readonly overrides: Readonly<Record<string, string | number | boolean>> } | null;
  selectedStep: number | null;
  error: string | null;
  playing: boolean;
  togglePlay(): void;
}

const patternLines = (text: string): string[] =>
  text
    .split('\n')
    .map((l) => l.trim())
    .filter((l) => l.length > 0);

/** The request a choice makes in the window's current state; null with nothing to export. */
export function exportRequest(s: Reads, c: ExportChoice): MethodInput<'exportSession'> | null {
  if (!s.currentId) return null;
  const replay = c.what !== 'original' && s.chartFor ? { policy: s.chartFor.policy, overrides: { ...s.chartFor.overrides } } : {};
  if (c.what !== 'original' && !s.chartFor) return null;
  return {
    sessionId: s.currentId,
    ...replay,
    at: c.what === 'window' && s.selectedStep !== null ? s.selectedStep : 'end',
    to: c.to,
    redact: c.redact && c.what !== 'report',
    redactPatterns: c.redact ? patternLines(c.patterns) : [],
    builtins: [...c.builtins],
  };
}

export function createExportSlice<S extends ExportSlice & Reads>(api: ApiClient, set: StoreApi<S>['setState'], get: () => S): ExportSlice {
  // Only the latest preview is applied: an older answer never overwrites a newer one.
  const setSlice = (patch: Partial<ExportSlice> & Partial<Reads>): void => set(patch as Partial<S>);
  // The dialog's previews are not tied to the open session; the newest one (the 'preview' lane) wins.
  const requests = createRequests({
    get: () => ({ currentId: null }),
    showError: (exportPreviewError) => setSlice({ exportPreviewError }),
  });
  return {
    exportOpen: false,
    exportChoice: DEFAULT_CHOICE,
    exportPreview: null,
    exportPreviewError: null,
    exportPending: false,
    openExport() {
      // Playback would move the call being exported under the dialog.
      if (get().playing) get().togglePlay();
      // With no replay on screen only the original session can be exported.
      const choice = get().chartFor
        ? get().exportChoice
        : {
            ...get().exportChoice,
            what: 'original' as const,
            to: FORMATS_FOR.original.includes(get().exportChoice.to) ? get().exportChoice.to : 'openai',
          };
      setSlice({ exportOpen: true, exportChoice: choice });
      void get().previewExport();
    },
    closeExport() {
      requests.supersede('preview');
      setSlice({ exportOpen: false, exportPreview: null, exportPreviewError: null, exportPending: false });
    },
    async setExportChoice(patch) {
      const next = { ...get().exportChoice, ...patch };
      const formats = FORMATS_FOR[next.what];
      setSlice({ exportChoice: formats.includes(next.to) ? next : { ...next, to: formats[0]! } });
      await get().previewExport();
    },
    async previewExport() {
      const req = exportRequest(get(), get().exportChoice);
      if (!req) {
        requests.supersede('preview');
        return setSlice({
          exportPreview: null,
          exportPending: false,
          exportPreviewError: 'Nothing to export: open a session (and wait for its replay) first.',
        });
      }
      setSlice({ exportPending: true });
      await requests.send(() => api.previewExport(req), {
        lane: 'preview',
        onAnswer: (p) => setSlice({ exportPreview: p, exportPreviewError: null }),
        onSettled: () => setSlice({ exportPending: false }),
      });
    },
    async saveExport() {
      const req = exportRequest(get(), get().exportChoice);
      if (!req) return null;
      let saved: ExportResult | null = null;
      await requests.send(() => api.exportSession(req), {
        onAnswer: (r) => {
          saved = r;
        },
      });
      return saved;
    },
    watchExportMenu() {
      return api.on('exportRequested', () => get().openExport());
    },
  };
}
