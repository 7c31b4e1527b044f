/** What the fleet's main thread sends a worker (one transcript) and what it answers (its rows, as one batch). */
import type { ReplayConfig } from '../../core/config';
import type { FleetBatch } from '../../core/fleet/rows';

export interface FleetPolicyJob {
  /** The `policy=` partition value. */
  readonly id: string;
  readonly config: ReplayConfig;
  readonly settingsHash: string;
}

export interface FleetJob {
  readonly file: string;
  readonly format?: string;
  readonly policies: readonly FleetPolicyJob[];
  readonly needles: readonly string[];
  /** What the dataset already holds for this path (a rerun): skipped when the file's hash is the same. */
  readonly done?: { readonly hash: string; readonly policies: readonly string[] };
}

export interface FleetReply {
  readonly file: string;
  readonly hash: string;
  /** The file's hash differs from the one the dataset holds rows for: nothing replayed. */
  readonly changed: boolean;
  /** Null when every policy was already written for this hash. */
  readonly batch: FleetBatch | null;
  readonly errors: number;
  /** Bytes read (for the rate shown). */
  readonly bytes: number;
}
