/**
 * Policies are data, so they are saved, edited, exported and imported as JSON. A policy file is
 * `{ id, label, source?, description?, config }`; the config is validated against the one schema
 * and the error names the field (and the file) that is wrong.
 */
import { z } from 'zod';
import { ConfigError, configSchema } from '../config';
import type { Policy } from './index';

const PolicyFile = z
  .object({
    id: z.string().regex(/^[a-z0-9][a-z0-9._-]{0,63}$/, 'lower-case letters, digits, ".", "_" or "-", at most 64'),
    label: z.string().min(1),
    source: z.string().default('user'),
    description: z.string().default(''),
    config: z.record(z.string(), z.unknown()),
  })
  .strict();

/** The policy as pretty JSON (stable key order: the object's own). */
export function policyToJSON(p: Policy): string {
  return JSON.stringify({ id: p.id, label: p.label, source: p.source, description: p.description, config: p.config }, null, 2) + '\n';
}

/** Parses a policy file's text; throws ConfigError with `where: field: problem`. */
export function parsePolicyJSON(text: string, where = 'policy'): Policy {
  let raw: unknown;
  try {
    raw = JSON.parse(text);
  } catch (e) {
    throw new ConfigError(`${where}: not valid JSON (${e instanceof Error ? e.message : String(e)})`);
  }
  const r = PolicyFile.safeParse(raw);
  if (!r.success) {
    const issue = r.error.issues[0]!;
    throw new ConfigError(`${where}: ${issue.path.join('.') || 'policy'}: ${issue.message}`);
  }
  const cfg = configSchema().safeParse(r.data.config);
  if (!cfg.success) {
    const issue = cfg.error.issues[0]!;
    throw new ConfigError(`${where}: config.${issue.path.join('.')}: ${issue.message}`);
  }
  // Keep the config as written (input form): defaults are applied when it is resolved, so a
  // saved policy does not freeze today's defaults into the file.
  return {
    id: r.data.id,
    label: r.data.label,
    source: r.data.source,
    description: r.data.description,
    config: { ...r.data.config, policy: r.data.id } as Policy['config'],
  };
}
