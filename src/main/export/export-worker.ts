/**
 * The export worker (a tinypool task module): builds an export and runs the redaction scan off the
 * host's request thread, with the very builder the host used before (host/exports.ts), so the
 * file, its name and its counts are unchanged. One task at a time per worker; an aborted task's
 * worker is ended by the pool, which is how a superseded preview stops.
 */
import { ApiError } from '../../shared/api';
import { buildExport } from '../host/exports';
import type { Session } from '../../core/model';
import type { ExportReply, ExportTask } from './protocol';

/** Sessions this worker was sent, by key, the most recent last: the dialog previews one session again and again. */
const held = new Map<string, Session>();
const HELD = 2;

export default async function runExport(task: ExportTask): Promise<ExportReply> {
  let session = task.session;
  if (session) {
    held.delete(task.sessionKey);
    held.set(task.sessionKey, session);
    while (held.size > HELD) held.delete(held.keys().next().value as string);
  } else {
    session = held.get(task.sessionKey) ?? null;
    if (!session) return { ok: false, missing: true };
  }
  try {
    const replay = task.replay;
    const built = await buildExport(session, task.row, task.args, async (policy) => {
      if (!replay) throw new ApiError('internal', `export worker: no replay was sent for policy "${policy}"`);
      return replay;
    });
    return { ok: true, built: task.withText ? built : { ...built, text: '' } };
  } catch (e) {
    if (e instanceof ApiError) return { ok: false, code: e.code, message: e.message };
    return { ok: false, code: 'internal', message: `export failed: ${e instanceof Error ? e.message : String(e)}` };
  }
}
