import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { defaultDbPath, userDataDir } from '../../../src/main/paths';

describe('where the database lives', () => {
  it('prefers $CTXSCOPE_DB', () => {
    expect(defaultDbPath({ CTXSCOPE_DB: '/tmp/x.db' })).toBe('/tmp/x.db');
  });
  it('uses the user-data folder of each platform', () => {
    expect(userDataDir({}, 'linux', '/home/a')).toBe(join('/home/a', '.config', 'Context Scope'));
    expect(userDataDir({ XDG_CONFIG_HOME: '/cfg' }, 'linux', '/home/a')).toBe(join('/cfg', 'Context Scope'));
    expect(userDataDir({}, 'darwin', '/Users/a')).toBe(join('/Users/a', 'Library', 'Application Support', 'Context Scope'));
    expect(userDataDir({ APPDATA: 'C:\\AppData' }, 'win32', 'C:\\Users\\a')).toBe(join('C:\\AppData', 'Context Scope'));
  });
});
