/**
 * Live tail's fast path for a session file that is one JSON document (docs/user-guide.md "Live
 * tail"), the host's side: the file is read, the walk (core/formats/document-walk.ts, pure) finds
 * what a new write adds and the format's document shapes convert it, and tail-append.ts stores it
 * as a first import of the file would.
 */
import { createHash, type Hash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { UNCOUNTED } from '../../core/formats/document';
import { documentChange, documentTailOf as tailOfBytes, type Digest, type DocumentTail } from '../../core/formats/document-walk';
import type { DocumentShape } from '../../core/formats/types';
import type { SessionStore } from './sessions';
import { inline, onlySession, planAppend, storedSession, type FastPlan } from './tail-append';

/** One shape of a format's documents (core/formats/types.ts). */
export type DocumentFormat = DocumentShape;
export type { DocumentTail };
export { UNCOUNTED };

/** node:crypto's sha256 as the walk's Digest. */
const wrap = (h: Hash): Digest => ({
  update(b) {
    h.update(b);
    return this;
  },
  copy: () => wrap(h.copy()),
  digest: () => h.digest('hex'),
});
const sha256 = (): Digest => wrap(createHash('sha256'));

/**
 * The fast path's state for bytes [0, size) of `path`, which must hash to `digest` (what was
 * imported), or undefined (not a document this path reads, or the file changed meanwhile). A
 * format's documents may have several shapes (`formats`, one per shape): the first that reads it.
 */
export function documentTail(formats: readonly DocumentFormat[], path: string, size: number, digest: string): DocumentTail | undefined {
  let b: Buffer;
  try {
    b = readFileSync(path);
  } catch {
    return undefined;
  }
  if (b.length < size) return undefined;
  b = b.subarray(0, size);
  if (createHash('sha256').update(b).digest('hex') !== digest) return undefined;
  return documentTailOf(formats, path, b);
}

/**
 * The same for `b`, the imported bytes as the caller read and verified them (the watch's one read
 * of the file: reading and hashing it again cost as much as the walk).
 */
export function documentTailOf(formats: readonly DocumentFormat[], path: string, b: Buffer): DocumentTail | undefined {
  return tailOfBytes(formats, path, b, sha256);
}

/** A fast update of a document: the plan, and what the source now is. */
export interface DocumentPlan extends FastPlan {
  readonly size: number;
  /** sha256 of the whole file, not finalised (the tail's running hash). */
  readonly hash: Hash;
  /** sha256 of the file's last TAIL_CHECK_BYTES bytes. */
  readonly tailDigest: string;
}

/**
 * The plan for the document `path` now holds, or undefined when the whole-file path must decide;
 * `'incomplete'` when the file ends inside the document (an agent still writing it).
 */
export function appendDocument(
  store: SessionStore,
  sourceId: number,
  path: string,
  tail: DocumentTail,
  checkBytes: number,
): DocumentPlan | 'incomplete' | undefined {
  const session = onlySession(store, sourceId);
  if (!session || session.messageCount === 0) return undefined;
  const b = readFileSync(path);
  const change = documentChange(tail, path, b, storedSession(store, session), sha256);
  if (change === undefined || change === 'incomplete') return change;
  const plan = planAppend(store, { session, from: change.from, removed: change.removed, changed: change.changed, record: inline });
  if (!plan) return undefined;
  return {
    ...plan,
    size: b.length,
    hash: createHash('sha256').update(b),
    tailDigest: createHash('sha256')
      .update(b.subarray(Math.max(0, b.length - checkBytes)))
      .digest('hex'),
    advance: change.advance,
  };
}
