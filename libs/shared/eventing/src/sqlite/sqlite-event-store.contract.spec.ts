import { openSqliteDatabase, SqliteDatabase } from '@cip/shared/runtime';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { eventStoreContract } from '../contract/event-store.contract';
import { SqliteEventStore } from './sqlite-event-store';

describe('event store contract: SQLite (embedded)', () => {
  const dir = mkdtempSync(join(tmpdir(), 'cip-es-'));
  let db: SqliteDatabase;
  eventStoreContract({
    open: async () => {
      db = openSqliteDatabase(join(dir, 'sandbox.sqlite'));
      return new SqliteEventStore(db, { name: 'sqlite:contract', pollIntervalMs: 20 });
    },
    cleanup: async () => {
      db.close();
      rmSync(dir, { recursive: true, force: true });
    },
  });
});
