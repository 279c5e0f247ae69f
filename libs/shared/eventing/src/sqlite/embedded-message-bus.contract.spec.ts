import { openSqliteDatabase, SqliteDatabase } from '@cip/shared/runtime';
import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { messageBusContract } from '../contract/message-bus.contract';
import { EmbeddedMessageBus } from './embedded-message-bus';
import { SqliteEventStore } from './sqlite-event-store';

describe('message bus contract: embedded (SQLite log)', () => {
  const dir = mkdtempSync(join(tmpdir(), 'cip-bus-'));
  let db: SqliteDatabase;
  let store: SqliteEventStore;
  messageBusContract({
    open: async () => {
      db = openSqliteDatabase(join(dir, 'sandbox.sqlite'));
      store = new SqliteEventStore(db, { name: 'sqlite:contract', pollIntervalMs: 20 });
      return new EmbeddedMessageBus(db, store);
    },
    cleanup: async () => {
      await store.close();
      db.close();
      rmSync(dir, { recursive: true, force: true });
    },
    topic: () => `t${randomBytes(6).toString('hex')}`,
  });
});
