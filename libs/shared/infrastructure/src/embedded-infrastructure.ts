import {
  EmbeddedMessageBus,
  newPersonalDataMasterKey,
  PersonalDataEventStore,
  personalDataMasterKey,
  PersonalDataVault,
  SqliteEventStore,
  SqlitePersonalDataKeyStore,
} from '@cip/shared/eventing';
import { SqliteIdempotencyStore, SqliteLeases, SqliteReadStore } from '@cip/shared/read-store';
import {
  loadOrCreateSecret,
  Logger,
  PlatformMetrics,
  SqliteCheckpointer,
  SqliteDatabase,
  openSqliteDatabase,
} from '@cip/shared/runtime';
import { basename, join } from 'node:path';
import { Infrastructure, PersonalDataOptions, STORE_SCOPES, ScopePorts, StoreScope } from './infrastructure';

export interface EmbeddedInfrastructureOptions {
  dataDir: string;
  metrics?: PlatformMetrics;
  logger?: Logger;
  /**
   * How often each scope's head watcher looks for appends made by another process (the CLI, or the other
   * services of the split topology: see `embeddedServiceOptions`); default 200 ms.
   */
  pollIntervalMs?: number;
  /**
   * The contexts' personal-data policies and the master key. Without policies nothing new is sealed, but
   * what the log holds sealed still opens: only apps that write the contexts' events need them.
   */
  personalData?: PersonalDataOptions;
  /**
   * Other SQLite files of the runtime (a context's own store, such as the card vaults) whose WAL the one
   * checkpoint worker also runs: a worker thread each would cost about 10 MiB of memory.
   */
  checkpointedFiles?: string[];
  /** Past this size a file's WAL is started again (SqliteCheckpointer's `walLimitBytes`; default 1 GiB). */
  walLimitBytes?: number;
}

/** The master key of the embedded runtime: the deployment's, or one generated under DATA_DIR/secrets. */
export const loadPersonalDataMasterKey = (dataDir: string, fromEnv?: string): Buffer =>
  personalDataMasterKey(
    loadOrCreateSecret({
      dataDir,
      name: 'personal-data-master-key',
      fromEnv,
      generate: newPersonalDataMasterKey,
    }),
  );

/**
 * The embedded runtime's ports: one SQLite file per scope under DATA_DIR (control, sandbox, production),
 * and beside each the scope's personal-data keys in a file of their own (`<scope>-keys.sqlite`).
 */
export function openEmbeddedInfrastructure(options: EmbeddedInfrastructureOptions): Infrastructure {
  const databases: SqliteDatabase[] = [];
  const masterKey = loadPersonalDataMasterKey(options.dataDir, options.personalData?.masterKey);
  const keyStores: SqlitePersonalDataKeyStore[] = [];
  const scopes = new Map<StoreScope, ScopePorts>();
  let leases: SqliteLeases | undefined;
  for (const scope of STORE_SCOPES) {
    const file = join(options.dataDir, `${scope}.sqlite`);
    // Events and idempotency outcomes are acknowledged to callers: every commit is fsynced. Read models
    // and consumer offsets are derived: they share the file through a connection that does not fsync.
    const db = openSqliteDatabase(file);
    const derived = openSqliteDatabase(file, { synchronous: 'NORMAL' });
    databases.push(derived, db);
    if (scope === 'control') leases = new SqliteLeases(derived);
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
      onHandled: (group, oldest) => {
        if (!options.metrics) return;
        // occurredAt is the command's time (the injected clock, which tests may set anywhere): never negative.
        const delayMs = Date.now() - Date.parse(oldest.metadata.occurredAt);
        if (delayMs >= 0) options.metrics.consumerDelay.observe({ store: name, group }, delayMs / 1000);
      },
      onHandlerError: (group, error, attempt) => {
        options.metrics?.consumerErrors.inc({ store: name, group });
        options.logger?.error(
          { err: error, group, attempt, store: name },
          'consumer handler failed; retrying',
        );
      },
    });
    const keyStore = SqlitePersonalDataKeyStore.open(join(options.dataDir, `${scope}-keys.sqlite`));
    keyStores.push(keyStore);
    const personalData = new PersonalDataVault(keyStore, masterKey, options.personalData?.policies ?? []);
    scopes.set(scope, {
      scope,
      eventStore: new PersonalDataEventStore(eventStore, personalData),
      storedEventStore: eventStore,
      personalData,
      bus,
      readStore: new SqliteReadStore(derived),
      // Outcomes ride on the event store's group commit (same connection): one fsync per turn for both; a
      // keyed request's run is recorded in its events' transaction (a retry after a kill -9 never runs again).
      idempotency: new SqliteIdempotencyStore(db, {
        commitAlongside: (write) => eventStore.commitAlongside(write),
        witnessAppends: (witness) => eventStore.witnessAppends(witness),
      }),
    });
  }
  const checkpointer = new SqliteCheckpointer(
    STORE_SCOPES.flatMap((scope) => [
      join(options.dataDir, `${scope}.sqlite`),
      join(options.dataDir, `${scope}-keys.sqlite`),
    ]).concat(options.checkpointedFiles ?? []),
    1000,
    (message) => options.logger?.warn({ message }, 'WAL checkpoint failed'),
    {
      walLimitBytes: options.walLimitBytes,
      onWalBytes: (path, bytes) => options.metrics?.walBytes.set({ file: basename(path) }, bytes),
    },
  );
  let closed = false;
  return {
    driver: 'embedded',
    leases: leases as SqliteLeases,
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
      for (const keyStore of keyStores) await keyStore.close();
      await checkpointer.stop();
    },
  };
}
