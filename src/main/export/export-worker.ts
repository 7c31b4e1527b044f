/**
 * The export worker (a tinypool task module): builds an export and runs the redaction scan off the
 * host's request thread, with the very builder the host used before (host/exports.ts), so the
 * file, its name and its counts are unchanged; and answers getAccuracy (`accuracy`, which counts
 * the whole session twice). The session comes from the database through this worker's own
 * read-only connection (protocol.ts), or from the host when it has no database a worker can open.
 * One task at a time per worker; an aborted task's worker is ended by the pool, which is how a
 * superseded preview stops.
 */
import { ApiError } from '../../shared/api';
import { buildExport } from '../host/exports';
import { accuracyOf } from '../host/accuracy';
import type { Session } from '../../core/model';
import { BoundedCache } from '../../core/bounded-cache';
import { openStore, type SessionStore } from '../store/index';
import type { AccuracyReply, AccuracyTask, ExportReply, ExportTask, StoreRef } from './protocol';

/** Sessions this worker holds, by key, the most recent last: the dialog previews one session again and again. */
const HELD = 2;
const held = new BoundedCache<string, Session>({ max: HELD });
/** Read-only connections, one per database (a worker lives as long as the pool keeps it). */
const stores = new Map<string, SessionStore>();

const storeOf = (ref: StoreRef): SessionStore => {
  let s = stores.get(ref.dbPath);
  if (!s)
    stores.set(
      ref.dbPath,
      (s = openStore(ref.dbPath, { readonly: true, ...(ref.nativeBinding ? { nativeBinding: ref.nativeBinding } : {}) })),
    );
  return s;
};

/** The session under `key`: held, else sent, else read from the store; null when the host must send it. */
function sessionFor(key: string, id: string, sent: Session | null, store: StoreRef | null | undefined): Session | null {
  let session = sent;
  if (!session) {
    session = held.get(key) ?? null;
    if (session) return session;
    if (!store) return null;
    session = storeOf(store).loadSession(id) ?? null;
    if (!session) throw new ApiError('not_found', `no session with id "${id}" in ${store.dbPath}`);
  }
  held.set(key, session);
  return session;
}

const failure = (e: unknown, what: string): { ok: false; code: ApiError['code']; message: string } =>
  e instanceof ApiError
    ? { ok: false, code: e.code, message: e.message }
    : { ok: false, code: 'internal', message: `${what} failed: ${e instanceof Error ? e.message : String(e)}` };

export default async function runExport(task: ExportTask): Promise<ExportReply> {
  try {
    const session = sessionFor(task.sessionKey, task.row.id, task.session, task.store);
    if (!session) return { ok: false, missing: true };
    const replay = task.replay;
    const built = await buildExport(session, task.row, task.args, async (policy) => {
      if (!replay) throw new ApiError('internal', `export worker: no replay was sent for policy "${policy}"`);
      return replay;
    });
    return { ok: true, built: task.withText ? built : { ...built, text: '' } };
  } catch (e) {
    return failure(e, 'export');
  }
}

export function accuracy(task: AccuracyTask): AccuracyReply {
  try {
    const session = sessionFor(task.sessionKey, task.sessionId, task.session, task.store);
    if (!session) return { ok: false, missing: true };
    return { ok: true, view: accuracyOf(session, task.tokenizer) };
  } catch (e) {
    return failure(e, 'accuracy');
  }
}
