import { openSqliteDatabase, SqliteDatabase } from '@cip/shared/runtime';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { leasesContract } from '../contract/leases.contract';
import { SqliteLeases } from './sqlite-leases';

describe('leases contract: SQLite (embedded)', () => {
  const dir = mkdtempSync(join(tmpdir(), 'cip-leases-'));
  let db: SqliteDatabase;
  leasesContract({
    open: async () => {
      db = openSqliteDatabase(join(dir, 'control.sqlite'));
      return new SqliteLeases(db);
    },
    cleanup: async () => {
      db.close();
      rmSync(dir, { recursive: true, force: true });
    },
  });
});
