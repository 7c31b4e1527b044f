/**
 * The user's policies, kept in SQLite (`policies` table; its `config` column holds the whole
 * policy document as written by `policyToJSON`, so label, source and description travel with it).
 * Every document is validated on the way in and again on the way out: a row edited by hand
 * into something invalid is left out of the list (the row stays, untouched), never passed to a
 * replay; asking for it by id says what is wrong with it. Saved policies
 * cannot take a built-in policy's id, so a built-in always means what docs/policies.md says.
 */
import { parsePolicyJSON, policyToJSON } from '../../core/policies/io';
import { getPolicy, type Policy } from '../../core/policies/index';
import { ConfigError } from '../../core/config';
import { ApiError } from '../../shared/api';
import type { Db } from '../store/db';

export class SavedPolicies {
  constructor(private readonly db: Db) {}

  list(): Policy[] {
    const rows = this.db.prepare('SELECT id, config FROM policies ORDER BY id').all() as { id: string; config: string }[];
    return rows.flatMap((r) => {
      try {
        return [parsePolicyJSON(r.config, `saved policy "${r.id}"`)];
      } catch {
        return [];
      }
    });
  }

  /** The saved policy with this id; a stored document that no longer validates is a bad_input naming its field. */
  get(id: string): Policy | undefined {
    const row = this.db.prepare('SELECT config FROM policies WHERE id = ?').get(id) as { config: string } | undefined;
    if (!row) return undefined;
    try {
      return parsePolicyJSON(row.config, `saved policy "${id}"`);
    } catch (e) {
      throw new ApiError('bad_input', e instanceof Error ? e.message : String(e));
    }
  }

  /** Validates the JSON text and saves it (replacing a saved policy with the same id). */
  save(json: string): Policy {
    let policy: Policy;
    try {
      policy = parsePolicyJSON(json, 'policy');
    } catch (e) {
      if (e instanceof ConfigError) throw new ApiError('bad_input', e.message);
      throw e;
    }
    if (getPolicy(policy.id)) throw new ApiError('bad_input', `policy: id "${policy.id}" is a built-in policy; give your copy another id`);
    this.db
      .prepare('INSERT OR REPLACE INTO policies (id, label, config, updated_at) VALUES (?, ?, ?, ?)')
      .run(policy.id, policy.label, policyToJSON(policy), Date.now());
    return policy;
  }

  delete(id: string): boolean {
    return this.db.prepare('DELETE FROM policies WHERE id = ?').run(id).changes > 0;
  }
}
