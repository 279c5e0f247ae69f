import { openSqliteDatabase, SqliteDatabase } from '@cip/shared/runtime';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { readStoreContract } from '../contract/read-store.contract';
import { SqliteReadStore } from './sqlite-read-store';

describe('read store contract: SQLite (embedded)', () => {
  const dir = mkdtempSync(join(tmpdir(), 'cip-rs-'));
  let db: SqliteDatabase;
  readStoreContract({
    open: async () => {
      db = openSqliteDatabase(join(dir, 'sandbox.sqlite'));
      return new SqliteReadStore(db);
    },
    cleanup: async () => {
      db.close();
      rmSync(dir, { recursive: true, force: true });
    },
  });
});
