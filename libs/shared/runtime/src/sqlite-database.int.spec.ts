import { chmodSync, existsSync, mkdtempSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { openSqliteDatabase } from './sqlite-database';

const modeOf = (path: string) => statSync(path).mode & 0o777;

describe('embedded store files', () => {
  const parent = mkdtempSync(join(tmpdir(), 'cip-perms-'));
  afterAll(() => rmSync(parent, { recursive: true, force: true }));

  it('are readable by the platform user only: 0700 data directory, 0600 database, WAL and shared memory', () => {
    const dataDir = join(parent, 'data');
    const path = join(dataDir, 'sandbox.sqlite');
    const db = openSqliteDatabase(path);
    db.exec('CREATE TABLE t (x INTEGER)');
    db.prepare('INSERT INTO t VALUES (1)').run();
    expect(modeOf(dataDir)).toBe(0o700);
    for (const file of [path, `${path}-wal`, `${path}-shm`]) {
      expect(existsSync(file)).toBe(true);
      expect([file, modeOf(file).toString(8)]).toEqual([file, '600']);
    }
    db.close();
  });

  it('tightens a database file created before with a wider mode', () => {
    const path = join(parent, 'old.sqlite');
    openSqliteDatabase(path).close();
    chmodSync(path, 0o644);
    openSqliteDatabase(path).close();
    expect(modeOf(path)).toBe(0o600);
  });
});
