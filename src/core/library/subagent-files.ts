/**
 * Claude Code 2.x subagents, written to files of their own beside the parent's transcript
 * (`<sessionId>/subagents/agent-<id>.jsonl` and `agent-<id>.meta.json`, docs/reference/formats.md, Claude Code), become
 * subagent sessions of the parent, as inline sidechains (v1.x) do. The host finds and opens the
 * files (src/main/io/subagent-files.ts); this takes their bytes and meta texts, so it stays pure.
 *
 * - Each file is read as Claude Code (a file of sidechain lines: its own main chain, with its
 *   `agentId`); one that does not parse is skipped with a warning naming its file and line, so a
 *   broken or half-written subagent never costs the parent's import.
 * - A subagent whose id a result of another subagent names (a subagent that spawned one) nests
 *   under that one; every other goes under the parent.
 * - A subagent that no call of its container ran stays, unlinked, with a warning
 *   (src/core/library/subagents.ts decides the links, exact by agentId first).
 */
import { importSource, type ImportOutcome } from '../import/index';
import { ImportError, type ByteSource } from '../import/types';
import type { Session } from '../model';
import { linkSubagents } from './subagents';

export interface SubagentFile {
  /** The id its file name carries (`agent-<id>.jsonl`). */
  readonly agentId: string;
  readonly source: ByteSource;
  /** The text of its `agent-<id>.meta.json`, when there is one. */
  readonly meta?: string;
}

export interface SubagentFileOptions {
  /** Keep each message's raw record (the store does; the CLI does not). Default true. */
  readonly keepRaw?: boolean;
  readonly tolerant?: boolean;
  readonly signal?: AbortSignal;
}

const text = (v: unknown): string | undefined => (typeof v === 'string' && v.trim() !== '' ? v.trim() : undefined);

/**
 * The title a meta file gives: `agentType: description` (the form the spawning call's arguments
 * give, src/core/library/subagents.ts), or whichever of the two it has. Anything else — not JSON,
 * not an object, other fields — gives none: the format has no spec, so nothing more is assumed.
 */
export function metaTitle(meta: string | undefined): string | undefined {
  if (meta === undefined) return undefined;
  let v: unknown;
  try {
    v = JSON.parse(meta);
  } catch {
    return undefined;
  }
  if (v === null || typeof v !== 'object' || Array.isArray(v)) return undefined;
  const o = v as Record<string, unknown>;
  const type = text(o['agentType']);
  const description = text(o['description']);
  return type && description ? `${type}: ${description}` : (description ?? type);
}

/** Hundreds of subagent files must not bury the parent's own warnings: the first few, then a count. */
const MAX_WARNINGS = 200;
const capped = (warnings: string[]): string[] =>
  warnings.length <= MAX_WARNINGS
    ? warnings
    : [...warnings.slice(0, MAX_WARNINGS), `… and ${warnings.length - MAX_WARNINGS} more warning(s) from subagent files`];

/** The parent's outcome with the subagent files' sessions attached to its (first) session. */
export async function attachSubagentFiles(
  outcome: ImportOutcome,
  files: readonly SubagentFile[],
  options: SubagentFileOptions = {},
): Promise<ImportOutcome> {
  const parent = outcome.sessions[0];
  if (outcome.format !== 'claude-code' || parent === undefined || files.length === 0) return outcome;
  const warnings = [...outcome.warnings];
  const subs: { session: Session; name: string }[] = [];
  for (const file of files) {
    let sessions: Session[];
    try {
      const r = await importSource(file.source, {
        format: 'claude-code',
        keepRaw: options.keepRaw ?? true,
        tolerant: options.tolerant ?? false,
        ...(options.signal ? { signal: options.signal } : {}),
      });
      sessions = r.sessions;
      warnings.push(...r.warnings);
    } catch (e) {
      if (options.signal?.aborted) throw e;
      if (!(e instanceof ImportError)) throw e;
      warnings.push(`${e.message} (subagent file skipped; the parent session is imported without it)`);
      continue;
    }
    const s = sessions[0];
    if (!s || s.messages.length === 0) continue;
    const title = metaTitle(file.meta) ?? s.title;
    subs.push({ session: { ...s, agentId: s.agentId ?? file.agentId, ...(title !== undefined ? { title } : {}) }, name: file.source.name });
  }
  if (subs.length === 0) return warnings.length === outcome.warnings.length ? outcome : { ...outcome, warnings: capped(warnings) };
  // Spawn order (their first line's time), then file name: the order the library lists them in.
  subs.sort(
    (a, b) => (a.session.startedAt ?? Infinity) - (b.session.startedAt ?? Infinity) || (a.name < b.name ? -1 : a.name > b.name ? 1 : 0),
  );

  // Which subagent ran which: a result naming an agent id inside another subagent's file.
  const ranBy = new Map<string, number>();
  subs.forEach(({ session }, k) => {
    for (const m of session.messages) if (m.agentId !== undefined && !ranBy.has(m.agentId)) ranBy.set(m.agentId, k);
  });
  const ownerOf = subs.map(({ session }, k) => {
    let owner = ranBy.get(session.agentId!);
    // A cycle (files naming each other) cannot be a spawn tree: such a subagent goes under the parent.
    for (let at = owner, hops = 0; at !== undefined; at = ranBy.get(subs[at]!.session.agentId!), hops++) {
      if (at === k || hops > subs.length) {
        owner = undefined;
        break;
      }
    }
    return owner ?? -1;
  });
  const fromFile = new Set<Session>();
  const build = (k: number): Session => {
    const s = subs[k]!.session;
    const children = subs.flatMap((_, j) => (ownerOf[j] === k ? [build(j)] : []));
    const built = children.length > 0 ? { ...s, subagents: [...s.subagents, ...children] } : s;
    fromFile.add(built);
    return built;
  };
  const top = subs.flatMap((_, k) => (ownerOf[k] === -1 ? [build(k)] : []));
  const attached: Session = { ...parent, subagents: [...parent.subagents, ...top] };

  const names = new Map<Session, string>();
  for (const s of fromFile) names.set(s, subs.find((x) => x.session.agentId === s.agentId)?.name ?? s.id);
  const unlinked = (container: Session): void => {
    const links = linkSubagents(container);
    container.subagents.forEach((sub, i) => {
      if (fromFile.has(sub) && links[i]?.callId == null) {
        warnings.push(
          `${names.get(sub)}: subagent ${sub.agentId} matches no call of the session that holds it (no tool result names its id, no Task/Agent call has its prompt or answer): listed under the session, not under a call`,
        );
      }
      unlinked(sub);
    });
  };
  unlinked(attached);
  return { ...outcome, sessions: [attached, ...outcome.sessions.slice(1)], warnings: capped(warnings) };
}
