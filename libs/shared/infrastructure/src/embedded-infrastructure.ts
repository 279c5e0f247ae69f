import { EmbeddedMessageBus, SqliteEventStore } from '@cip/shared/eventing';
import { SqliteIdempotencyStore, SqliteReadStore } from '@cip/shared/read-store';
import { Logger, PlatformMetrics, SqliteDatabase, openSqliteDatabase } from '@cip/shared/runtime';
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
    const db = openSqliteDatabase(join(options.dataDir, `${scope}.sqlite`));
    databases.push(db);
    const name = `sqlite:${scope}`;
    const eventStore = new SqliteEventStore(db, {
      name,
      pollIntervalMs: options.pollIntervalMs,
      onCommit: (appends, waited) => {
        options.metrics?.appendBatchSize.observe({ store: name }, appends);
        for (const ms of waited) options.metrics?.appendDuration.observe({ store: name }, ms / 1000);
      },
    });
    const bus = new EmbeddedMessageBus(db, eventStore, {
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
      readStore: new SqliteReadStore(db),
      idempotency: new SqliteIdempotencyStore(db),
    });
  }
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
    },
  };
}
