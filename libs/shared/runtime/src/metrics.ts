import { Counter, Gauge, Histogram, Registry, collectDefaultMetrics } from 'prom-client';
import { RecentServerErrors } from './recent-server-errors';

/**
 * The Prometheus registry of a process and the metrics shared by every app (ARCHITECTURE.md,
 * "Observability"). One instance per process; apps expose it at GET /metrics.
 */
export class PlatformMetrics {
  readonly registry = new Registry();

  /** The /v1 API's recent 5xx answers, for the backoffice's health page (the access log records them). */
  readonly recentServerErrors = new RecentServerErrors();

  readonly httpDuration = new Histogram({
    name: 'http_request_duration_seconds',
    help: 'HTTP request latency by route, method and status',
    labelNames: ['method', 'route', 'status'] as const,
    buckets: [0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5],
    registers: [this.registry],
  });

  readonly appendDuration = new Histogram({
    name: 'event_store_append_duration_seconds',
    help: 'Latency of an acknowledged (durable) append, queueing for the group commit included',
    labelNames: ['store'] as const,
    buckets: [0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25],
    registers: [this.registry],
  });

  readonly appendBatchSize = new Histogram({
    name: 'event_store_group_commit_appends',
    help: 'Appends committed together in one transaction',
    labelNames: ['store'] as const,
    buckets: [1, 2, 4, 8, 16, 32, 64, 128, 256],
    registers: [this.registry],
  });

  readonly cardVaultBatchSize = new Histogram({
    name: 'card_vault_group_commit_puts',
    help: 'New cards committed together in one card vault transaction',
    labelNames: ['environment'] as const,
    buckets: [1, 2, 4, 8, 16, 32, 64, 128, 256],
    registers: [this.registry],
  });

  readonly consumerLag = new Gauge({
    name: 'consumer_lag_events',
    help: 'Events in the log not yet processed by a consumer group',
    labelNames: ['store', 'group'] as const,
    registers: [this.registry],
  });

  readonly consumerDelay = new Histogram({
    name: 'consumer_delay_seconds',
    help:
      'How long after its command an event reached a consumer group (from the metadata occurredAt of the oldest ' +
      'event of each handled batch to the end of its handling): append to read model, for projections',
    labelNames: ['store', 'group'] as const,
    buckets: [0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.075, 0.1, 0.15, 0.25, 0.5, 1, 2.5, 5],
    registers: [this.registry],
  });

  readonly deadlineSweepTime = new Gauge({
    name: 'deadline_sweep_clock_seconds',
    help:
      'The clock time a deadline sweep (KYC links, card holds, 3DS challenges) last looked at, in Unix seconds: ' +
      'everything due by then has been expired (a sweep behind the clock is a stuck scheduler)',
    labelNames: ['sweep'] as const,
    registers: [this.registry],
  });

  /**
   * Where the webhook backlog is read when the gauge below is collected: set by the process that delivers
   * webhooks (its delivery engine), null elsewhere, where the gauge has no value.
   */
  webhookBacklogSource: { environments: readonly string[]; pending(environment: string): number } | null =
    null;

  readonly webhookBacklog = new Gauge({
    name: 'webhook_delivery_backlog',
    help: 'Webhook deliveries not yet finished (queued or waiting for a retry), per environment',
    labelNames: ['environment'] as const,
    registers: [this.registry],
    // An arrow function: `this` is these metrics, read at each collection (a scrape, a health report).
    collect: () => {
      const source = this.webhookBacklogSource;
      if (!source) return;
      for (const environment of source.environments) {
        this.webhookBacklog.set({ environment }, source.pending(environment));
      }
    },
  });

  readonly walBytes = new Gauge({
    name: 'sqlite_wal_bytes',
    help:
      "Bytes of frames in an embedded SQLite file's WAL since the log last started again from its beginning, as " +
      'the checkpointer last saw them (bounded near SQLITE_WAL_LIMIT_MB)',
    labelNames: ['file'] as const,
    registers: [this.registry],
  });

  /** The PostgreSQL event stores of the process, by name (see `watchPostgresTransactions`). */
  private readonly postgresTransactionSources = new Map<string, PostgresTransactionSource>();

  readonly postgresOldestTransactionAge = new Gauge({
    name: 'postgres_oldest_transaction_age_seconds',
    help:
      "Age of the oldest open transaction that wrote anything in a PostgreSQL event store's database, read at each " +
      'scrape (0 when none): one holding the append lock stalls every append, any holds back vacuum',
    labelNames: ['store'] as const,
    registers: [this.registry],
    // Asked at each collection (a scrape): an age is only worth its moment. A store that cannot answer in time
    // has no value rather than a stale one.
    collect: async () => {
      await Promise.all(
        [...this.postgresTransactionSources].map(async ([store, source]) => {
          const age = await withTimeout(source.oldestOpenTransactionAgeMs(), POSTGRES_AGE_TIMEOUT_MS).catch(
            () => undefined,
          );
          if (age === undefined) this.postgresOldestTransactionAge.remove({ store });
          else this.postgresOldestTransactionAge.set({ store }, age / 1000);
        }),
      );
    },
  });

  readonly consumerErrors = new Counter({
    name: 'consumer_errors_total',
    help: 'Handler failures of a consumer group (the batch is retried)',
    labelNames: ['store', 'group'] as const,
    registers: [this.registry],
  });

  constructor(collectDefaults = true) {
    if (collectDefaults) collectDefaultMetrics({ register: this.registry });
  }

  /**
   * Reports `store`'s database's oldest open transaction (`postgres_oldest_transaction_age_seconds`, label
   * `store` its name) at each scrape, until the returned function is called (before the store closes).
   */
  watchPostgresTransactions(store: PostgresTransactionSource): () => void {
    this.postgresTransactionSources.set(store.name, store);
    return () => {
      if (this.postgresTransactionSources.get(store.name) !== store) return;
      this.postgresTransactionSources.delete(store.name);
      this.postgresOldestTransactionAge.remove({ store: store.name });
    };
  }
}

/** A PostgreSQL event store as the transaction-age gauge reads it (`PostgresEventStore`). */
export interface PostgresTransactionSource {
  readonly name: string;
  /** Age of the database's oldest open transaction holding an xid, in ms (0 when none). */
  oldestOpenTransactionAgeMs(): Promise<number>;
}

/** A scrape does not wait longer than this for a store's answer (a pool with no free connection, say). */
const POSTGRES_AGE_TIMEOUT_MS = 2_000;

function withTimeout<T>(promise: Promise<T>, ms: number): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`no answer within ${ms} ms`)), ms);
  });
  return Promise.race([promise, timeout]).finally(() => clearTimeout(timer));
}

export const METRICS = Symbol('METRICS');
