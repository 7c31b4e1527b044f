/** Every schema version, in order. One forward migration per version; never edit a shipped one. */
import * as m001 from './001_sessions';
import * as m002 from './002_counts';
import * as m003 from './003_work';
import * as m004 from './004_messages_rowid';
import * as m005 from './005_source_lines';
import * as m006 from './006_library';
import * as m007 from './007_probes';
import * as m008 from './008_call_keys';
import * as m009 from './009_exact_through';

export interface Migration {
  readonly version: number;
  readonly sql: string;
}

export const MIGRATIONS: readonly Migration[] = [m001, m002, m003, m004, m005, m006, m007, m008, m009];
export const SCHEMA_VERSION = MIGRATIONS[MIGRATIONS.length - 1]!.version;
