/**
 * `DIR/manifest.json`: what a fleet dataset holds — the program version, each policy with its full
 * settings and their hash, the inputs, the shards written and their row counts. A rerun with the
 * same settings resumes; one with other settings is refused unless `--overwrite` (docs/fleet.md).
 */
import { sha256 } from '@noble/hashes/sha2.js';
import { bytesToHex, utf8ToBytes } from '@noble/hashes/utils.js';
import type { Shard } from './shard';

/** 2: `sessions.overflows`, `steps.cache_read_tokens` and `steps.cache_write_tokens`; 3: `steps.call_key` (an older folder is refused: its parts lack them). */
export const MANIFEST_VERSION = 3;

export interface FleetPolicy {
  /** The value of the `policy=` partition. */
  readonly id: string;
  /** The fully resolved config the replays ran with. */
  readonly settings: Readonly<Record<string, unknown>>;
  /** sha256 of the settings written with sorted keys (`settingsHash`). */
  readonly settingsHash: string;
}

export interface RowCounts {
  sessions: number;
  steps: number;
  compressions: number;
}

export interface ShardRecord {
  readonly index: number;
  readonly count: number;
  /** Transcripts in this share of the inputs. */
  readonly files: number;
  /** Rows this shard has written so far (across reruns). */
  readonly rows: RowCounts;
  readonly errors: number;
  readonly finishedAt: string | null;
}

export interface FleetManifest {
  readonly manifestVersion: number;
  readonly program: { readonly name: 'ctxscope'; readonly version: string };
  readonly policies: readonly FleetPolicy[];
  readonly needles: readonly string[];
  readonly inputs: readonly string[];
  readonly shards: readonly ShardRecord[];
  readonly rows: RowCounts;
}

/** JSON with object keys sorted at every level: equal settings always hash alike. */
export function canonicalJSON(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(canonicalJSON).join(',')}]`;
  if (value !== null && typeof value === 'object') {
    const entries = Object.entries(value as Record<string, unknown>)
      .filter(([, v]) => v !== undefined)
      .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
    return `{${entries.map(([k, v]) => `${JSON.stringify(k)}:${canonicalJSON(v)}`).join(',')}}`;
  }
  return JSON.stringify(value) ?? 'null';
}

export function settingsHash(settings: unknown): string {
  return bytesToHex(sha256(utf8ToBytes(canonicalJSON(settings)))).slice(0, 16);
}

/** What must match for a rerun to add to a dataset: the policies, their settings and the needles. */
export function sameSettings(
  a: Pick<FleetManifest, 'policies' | 'needles'>,
  b: Pick<FleetManifest, 'policies' | 'needles'>,
): string | null {
  const ids = (m: Pick<FleetManifest, 'policies'>) => m.policies.map((p) => p.id).join(', ');
  if (ids(a) !== ids(b)) return `it holds policies ${ids(a)}, this run asks for ${ids(b)}`;
  for (let i = 0; i < a.policies.length; i++) {
    if (a.policies[i]!.settingsHash !== b.policies[i]!.settingsHash)
      return `policy ${a.policies[i]!.id} was run with other settings (${a.policies[i]!.settingsHash} vs ${b.policies[i]!.settingsHash})`;
  }
  if (canonicalJSON(a.needles) !== canonicalJSON(b.needles))
    return `it tracked needles ${JSON.stringify(a.needles)}, this run ${JSON.stringify(b.needles)}`;
  return null;
}

/** The manifest after a shard wrote: its record replaced, the totals summed over the shards. */
export function withShard(m: FleetManifest, record: ShardRecord): FleetManifest {
  const shards = [...m.shards.filter((s) => !(s.index === record.index && s.count === record.count)), record].sort(
    (a, b) => a.count - b.count || a.index - b.index,
  );
  const rows: RowCounts = { sessions: 0, steps: 0, compressions: 0 };
  for (const s of shards) {
    rows.sessions += s.rows.sessions;
    rows.steps += s.rows.steps;
    rows.compressions += s.rows.compressions;
  }
  return { ...m, shards, rows };
}

export const shardName = (s: Shard): string => `${s.index}-of-${s.count}`;

/** A `policy=` partition value: the policy id with anything a path or a hive reader would trip on replaced. */
export function partitionValue(policyId: string): string {
  return policyId.replace(/[^A-Za-z0-9._-]/g, '_');
}

/** Parses a manifest read from disk; the error names the file and what was expected. */
export function parseManifest(text: string, file: string): FleetManifest {
  let v: unknown;
  try {
    v = JSON.parse(text);
  } catch (e) {
    throw new Error(`${file}: expected JSON (${e instanceof Error ? e.message : String(e)})`);
  }
  const m = v as Partial<FleetManifest>;
  if (
    typeof v !== 'object' ||
    v === null ||
    m.manifestVersion !== MANIFEST_VERSION ||
    !Array.isArray(m.policies) ||
    !Array.isArray(m.shards)
  ) {
    throw new Error(`${file}: expected a ctxscope fleet manifest (manifestVersion ${MANIFEST_VERSION}, policies, shards)`);
  }
  return { needles: [], inputs: [], rows: { sessions: 0, steps: 0, compressions: 0 }, ...m } as FleetManifest;
}
