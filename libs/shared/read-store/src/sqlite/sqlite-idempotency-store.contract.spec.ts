import { openSqliteDatabase, SqliteDatabase } from '@cip/shared/runtime';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { idempotencyStoreContract } from '../contract/idempotency-store.contract';
import { SqliteIdempotencyStore } from './sqlite-idempotency-store';

describe('idempotency store contract: SQLite (embedded)', () => {
  const dir = mkdtempSync(join(tmpdir(), 'cip-idem-'));
  let db: SqliteDatabase;
  idempotencyStoreContract({
    open: async () => {
      db = openSqliteDatabase(join(dir, 'sandbox.sqlite'));
      return new SqliteIdempotencyStore(db);
    },
    cleanup: async () => {
      db.close();
      rmSync(dir, { recursive: true, force: true });
    },
  });
});
