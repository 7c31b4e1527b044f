/**
 * `ctxscope serve` never tells the page where it keeps uploads. A file uploaded to serve is
 * referred to, in every answer and event, as `upload:<stored file name>` (the name carries the
 * upload's random id, so it is opaque and unique), and importFiles takes that reference back and
 * resolves it inside the uploads folder only. This is one wrapper around the host's handler table,
 * applied by serve alone (the desktop app reads the user's own files and shows their paths).
 *
 * What is left as a path, on purpose: agent logs (`~/.claude/projects`, `~/.codex/sessions`,
 * `~/.gemini/tmp`) and the files named on serve's command line are the user's own files, listed
 * by design and imported by their paths; they say nothing about where the server keeps its data.
 * The database's location is such a server path, so getInfo answers only its file name.
 */
import { basename, sep } from 'node:path';
import { ApiError, METHOD_NAMES, type Handlers, type MethodName } from '../../shared/api';

export const UPLOAD_REF = 'upload:';

export class UploadRefs {
  private readonly prefix: string | null;
  private readonly dir: string | null;

  /** `dir`: the uploads folder as serve resolved it (null: no uploads, nothing to hide). */
  constructor(dir: string | null) {
    this.dir = dir === null ? null : dir.endsWith(sep) ? dir.slice(0, -1) : dir;
    this.prefix = this.dir === null ? null : this.dir + sep;
  }

  /**
   * Every mention of the uploads folder in `text` becomes `upload:` (`/srv/uploads/ab-f.jsonl` →
   * `upload:ab-f.jsonl`; the folder itself, as the agent-logs panel lists its roots → `upload:`).
   */
  scrub(text: string): string {
    if (this.dir === null || this.prefix === null || !text.includes(this.dir)) return text;
    return text.split(this.prefix).join(UPLOAD_REF).split(this.dir).join(UPLOAD_REF);
  }

  /**
   * `value` with every string scrubbed; the same object when nothing changed (most answers hold
   * no upload path, and a long session's answer must not be copied for nothing).
   */
  scrubDeep<T>(value: T): T {
    if (this.prefix === null) return value;
    return this.walk(value) as T;
  }

  private walk(v: unknown): unknown {
    if (typeof v === 'string') return this.scrub(v);
    if (v === null || typeof v !== 'object' || ArrayBuffer.isView(v)) return v;
    if (Array.isArray(v)) {
      let out: unknown[] | null = null;
      for (let i = 0; i < v.length; i++) {
        const x = v[i] as unknown;
        // Numbers are most of a long answer: skip them without a call.
        if (typeof x === 'number') continue;
        const y = this.walk(x);
        if (y !== x) (out ??= v.slice())[i] = y;
      }
      return out ?? v;
    }
    let out: Record<string, unknown> | null = null;
    for (const [k, x] of Object.entries(v as Record<string, unknown>)) {
      const y = this.walk(x);
      if (y !== x) (out ??= { ...(v as Record<string, unknown>) })[k] = y;
    }
    return out ?? v;
  }

  /** The stored path an `upload:<name>` names; any other path unchanged (the allow-list judges it). */
  resolve(path: string): string {
    if (!path.startsWith(UPLOAD_REF)) return path;
    const name = path.slice(UPLOAD_REF.length);
    // Only a plain file name inside the folder: no separators, no `..`, nothing hidden.
    if (this.prefix === null || name.length === 0 || name !== basename(name) || name.includes('\\') || name.startsWith('.')) {
      throw new ApiError('bad_input', `${path}: expected upload:<name> as listed by listLocalLogs (a file uploaded to this server)`);
    }
    return this.prefix + name;
  }
}

/**
 * The handler table as serve's page sees it: importFiles accepts `upload:<name>`; every answer
 * and every error message has the uploads folder replaced by `upload:`; getInfo names the
 * database by its file name only.
 */
export function withUploadRefs(handlers: Handlers, refs: UploadRefs): Handlers {
  const out = { ...handlers } as Record<MethodName, (args: unknown) => Promise<unknown>>;
  for (const name of METHOD_NAMES) {
    const inner = handlers[name] as (args: unknown) => Promise<unknown>;
    out[name] = async (args) => {
      try {
        return refs.scrubDeep(await inner(args));
      } catch (e) {
        if (e instanceof ApiError) throw new ApiError(e.code, refs.scrub(e.message));
        throw e;
      }
    };
  }
  const wrapped = out as Handlers;
  const importFiles = wrapped.importFiles;
  const getInfo = wrapped.getInfo;
  return {
    ...wrapped,
    importFiles: async (args) => importFiles({ ...args, paths: args.paths.map((p) => refs.resolve(p)) }),
    getInfo: async (args) => {
      const info = await getInfo(args);
      return { ...info, dbPath: info.dbPath === ':memory:' ? info.dbPath : basename(info.dbPath) };
    },
  };
}
