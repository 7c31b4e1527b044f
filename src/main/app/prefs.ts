/**
 * The desktop app's small preferences file (userData/prefs.json): window bounds, theme and the
 * recently opened files. Read through a zod schema; a missing, unreadable or broken file gives
 * the defaults (it is a convenience, never a reason not to start). File access is injected so
 * tests need neither Electron nor a disk.
 */
import { z } from 'zod';

export const THEMES = ['system', 'light', 'dark'] as const;
export type Theme = (typeof THEMES)[number];
export const MAX_RECENT = 10;

const bounds = z.object({
  x: z.number().int().optional(),
  y: z.number().int().optional(),
  width: z.number().int().min(200).max(100_000),
  height: z.number().int().min(200).max(100_000),
  maximized: z.boolean().default(false),
});
export type WindowBounds = z.infer<typeof bounds>;

const schema = z.object({
  window: bounds.optional(),
  theme: z.enum(THEMES).default('system'),
  recent: z.array(z.string().min(1)).max(100).default([]),
});
export type Prefs = z.infer<typeof schema>;

export const DEFAULT_PREFS: Prefs = { theme: 'system', recent: [] };

export interface PrefsFs {
  read(): string | undefined;
  write(text: string): void;
}

export function parsePrefs(text: string | undefined): Prefs {
  if (text === undefined) return { ...DEFAULT_PREFS };
  try {
    const r = schema.safeParse(JSON.parse(text));
    return r.success ? { ...r.data, recent: r.data.recent.slice(0, MAX_RECENT) } : { ...DEFAULT_PREFS };
  } catch {
    return { ...DEFAULT_PREFS };
  }
}

/** The file opened last comes first; a file opened again moves up; at most MAX_RECENT. */
export function addRecent(recent: readonly string[], path: string): string[] {
  return [path, ...recent.filter((p) => p !== path)].slice(0, MAX_RECENT);
}

export class PrefsStore {
  private prefs: Prefs;

  constructor(private readonly fs: PrefsFs) {
    let text: string | undefined;
    try {
      text = fs.read();
    } catch {
      text = undefined;
    }
    this.prefs = parsePrefs(text);
  }

  get(): Readonly<Prefs> {
    return this.prefs;
  }

  update(change: Partial<Prefs>): void {
    this.prefs = { ...this.prefs, ...change };
    try {
      this.fs.write(JSON.stringify(this.prefs, null, 2) + '\n');
    } catch {
      // A read-only profile keeps working, just without remembering.
    }
  }
}
