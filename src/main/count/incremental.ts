/**
 * A stored session's exact counts under a BPE tokenizer, made without holding the session
 * (docs/architecture.md "How a session is held in memory"): the counts are assembled from each
 * message's head (role, reported usage: `SessionStore.messageHeads`), the text is read a page at a
 * time and let go, and the messages whose exact counts are stored already are not read at all.
 *
 * After a live-tail append the stored counts keep the exact numbers of the messages it did not
 * rewrite (`exact_through`, store/tail-append.ts `extendCounts`): the recount then tokenizes the new
 * messages only, and refits `calibrated` over the whole session from numbers. `calibrated` is a fit
 * over its base tokenizer's counts, which it stores too: the next recount starts from those.
 *
 * What was read is stored only if the session is still as it was (`countFingerprint`): an append
 * that lands meanwhile leaves the counts it extended, and asks for its own recount.
 */
import { CALIBRATION_BASE, mediaTokensFor, type SessionCounts } from '../../core/tokens/index';
import type { Message, Session } from '../../core/model';
import type { SessionStore } from '../store/sessions';
import type { BulkCounter } from './bulk';
import { countExactFrom } from './exact';

/** What a count did: stored, or not (the session changed or went while it was counted). */
export interface IncrementalOutcome {
  readonly stored: boolean;
  /** Messages tokenized (the rest were known). */
  readonly counted: number;
  readonly messages: number;
}

/** The tokenizer whose per-message numbers `tokenizer`'s counts are made of (itself but for `calibrated`). */
const baseTokenizerOf = (tokenizer: string): string => (tokenizer === 'calibrated' ? CALIBRATION_BASE : tokenizer);

interface Snapshot {
  readonly session: Session;
  readonly fingerprint: string;
  readonly known: Uint32Array | undefined;
}

function snapshot(store: SessionStore, sessionId: string, tokenizer: string): Snapshot | undefined {
  // One read: the heads, the stored numbers and the fingerprint describe the same state.
  return store.db.transaction(() => {
    const meta = store.sessionMeta(sessionId);
    const heads = store.messageHeads(sessionId);
    const fingerprint = store.countFingerprint(sessionId);
    if (!meta || !heads || fingerprint === undefined) return undefined;
    const stored = store.loadCounts(sessionId, baseTokenizerOf(tokenizer));
    // Counts of another length were stored for another state of the session (its last messages
    // may have been written again since): only a row of this length says what is exact.
    const usable = stored && stored.perMessage.length === heads.length && stored.exactThrough > 0;
    return {
      session: { ...meta, messages: heads },
      fingerprint,
      known: usable ? stored.perMessage.slice(0, stored.exactThrough) : undefined,
    };
  })();
}

/** Counts session `sessionId` exactly under BPE `tokenizer` and stores the counts (see the file's comment). */
export async function countStoredSession(
  store: SessionStore,
  sessionId: string,
  tokenizer: string,
  bulk: BulkCounter,
  /** Awaited once the heads are read, before any text is counted (the pool's encoding loading meanwhile). */
  ready?: () => Promise<unknown>,
): Promise<IncrementalOutcome | undefined> {
  const snap = snapshot(store, sessionId, tokenizer);
  if (!snap) return undefined;
  await ready?.();
  const { session, known } = snap;
  const read = (from: number, to: number): readonly Message[] =>
    store.messageBodies(sessionId, from, to).map((body) => JSON.parse(body) as Message);
  const made = await countExactFrom(
    session,
    { read, ...(known ? { known } : {}) },
    tokenizer,
    { mediaTokens: mediaTokensFor(session.provider) },
    bulk,
  );
  const stored = store.db
    .transaction((): boolean => {
      if (store.countFingerprint(sessionId) !== snap.fingerprint) return false;
      store.saveCounts(sessionId, made.counts);
      if (made.base !== made.counts) store.saveCounts(sessionId, made.base satisfies SessionCounts);
      return true;
    })
    .immediate();
  const n = session.messages.length;
  return { stored, counted: n - (known?.length ?? 0), messages: n };
}
