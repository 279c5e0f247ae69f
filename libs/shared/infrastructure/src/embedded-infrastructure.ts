import { EmbeddedMessageBus, SqliteEventStore } from '@cip/shared/eventing';
import { SqliteIdempotencyStore, SqliteReadStore } from '@cip/shared/read-store';
import {
  Logger,
  PlatformMetrics,
  SqliteCheckpointer,
  SqliteDatabase,
  openSqliteDatabase,
} from '@cip/shared/runtime';
import { join } from 'node:path';
import { Infrastructure, STORE_SCOPES, ScopePorts, StoreScope } from './infrastructure';

export interface EmbeddedInfrastructureOptions {
  dataDir: string;
  metrics?: PlatformMetrics;
  logger?: Logger;
  /** How often live subscriptions look for appends made by another process (the CLI). */
  pollIntervalMs?: number;
}

/** The embedded runtime's ports: one SQLite file per scope under DATA_DIR (control, sandbox, production). */
export function openEmbeddedInfrastructure(options: EmbeddedInfrastructureOptions): Infrastructure {
  const databases: SqliteDatabase[] = [];
  const scopes = new Map<StoreScope, ScopePorts>();
  for (const scope of STORE_SCOPES) {
    const file = join(options.dataDir, `${scope}.sqlite`);
    // Events and idempotency outcomes are acknowledged to callers: every commit is fsynced. Read models
    // and consumer offsets are derived: they share the file through a connection that does not fsync.
    const db = openSqliteDatabase(file);
    const derived = openSqliteDatabase(file, { synchronous: 'NORMAL' });
    databases.push(derived, db);
    const name = `sqlite:${scope}`;
    const eventStore = new SqliteEventStore(db, {
      name,
      pollIntervalMs: options.pollIntervalMs,
      subscriptionCoalesceMs: scope === 'control' ? 0 : 10,
      onCommit: (appends, waited) => {
        options.metrics?.appendBatchSize.observe({ store: name }, appends);
        for (const ms of waited) options.metrics?.appendDuration.observe({ store: name }, ms / 1000);
      },
    });
    const bus = new EmbeddedMessageBus(derived, eventStore, {
      onProgress: (group, position, head) =>
        options.metrics?.consumerLag.set({ store: name, group }, head - position),
      onHandlerError: (group, error, attempt) => {
        options.metrics?.consumerErrors.inc({ store: name, group });
        options.logger?.error(
          { err: error, group, attempt, store: name },
          'consumer handler failed; retrying',
        );
      },
    });
    scopes.set(scope, {
      scope,
      eventStore,
      bus,
      readStore: new SqliteReadStore(derived),
      idempotency: new SqliteIdempotencyStore(db),
    });
  }
  const checkpointer = new SqliteCheckpointer(
    STORE_SCOPES.map((scope) => join(options.dataDir, `${scope}.sqlite`)),
    1000,
    (message) => options.logger?.warn({ message }, 'WAL checkpoint failed'),
  );
  let closed = false;
  return {
    driver: 'embedded',
    scope: (scope) => {
      const ports = scopes.get(scope);
      if (!ports) throw new Error(`Unknown store scope ${scope}`);
      return ports;
    },
    close: async () => {
      if (closed) return;
      closed = true;
      for (const ports of scopes.values()) {
        await ports.bus.close();
        await ports.eventStore.close();
      }
      for (const db of databases) db.close();
      await checkpointer.stop();
    },
  };
}
