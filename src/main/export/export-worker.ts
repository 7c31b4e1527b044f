/**
 * The export worker (a tinypool task module): builds an export and runs the redaction scan off the
 * host's request thread, with the very builder the host used before (host/exports.ts), so the
 * file, its name and its counts are unchanged. One task at a time per worker; an aborted task's
 * worker is ended by the pool, which is how a superseded preview stops.
 */
import { ApiError } from '../../shared/api';
import { buildExport } from '../host/exports';
import type { ExportReply, ExportTask } from './protocol';

export default async function runExport(task: ExportTask): Promise<ExportReply> {
  try {
    const replay = task.replay;
    const built = await buildExport(task.session, task.row, task.args, async (policy) => {
      if (!replay) throw new ApiError('internal', `export worker: no replay was sent for policy "${policy}"`);
      return replay;
    });
    return { ok: true, built: task.withText ? built : { ...built, text: '' } };
  } catch (e) {
    if (e instanceof ApiError) return { ok: false, code: e.code, message: e.message };
    return { ok: false, code: 'internal', message: `export failed: ${e instanceof Error ? e.message : String(e)}` };
  }
}
