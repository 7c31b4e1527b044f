/**
 * One setting of the config panel as the engine describes it (src/core/config-fields.ts builds them,
 * the tuner reads their ranges). The contract (src/shared/api.ts) re-exports it.
 */
/** One setting of the config panel, derived from the config schema and the policy. */
export interface ConfigField {
  readonly key: string;
  readonly label: string;
  readonly group: string;
  readonly kind: 'number' | 'ratio' | 'integer' | 'select' | 'toggle' | 'text' | 'list';
  readonly unit: string | null;
  readonly min: number | null;
  readonly max: number | null;
  readonly step: number | null;
  readonly options: readonly string[] | null;
  /** The value in force: the override if set, else the policy's, else the default. */
  readonly value: string | number | boolean | readonly string[] | null;
  readonly policyValue: string | number | boolean | readonly string[] | null;
  readonly overridden: boolean;
  /** False for a setting the policy ignores; `why` says so. */
  readonly applies: boolean;
  readonly why: string | null;
  readonly description: string;
}
