import { migrate } from '@cip/shared/runtime';
import { Client, DatabaseError, Pool, type PoolClient } from 'pg';
import { repeatedEventId, replayedAppend, type StoredEventIdentity } from '../event-id-replay';
import {
  AppendResult,
  EventData,
  EventStore,
  ExpectedRevision,
  ReadAllOptions,
  RecordedEvent,
  StoreSubscription,
  StreamAppend,
  SubscribeOptions,
  WrongExpectedRevisionError,
  satisfiesExpectedRevision,
} from '../event-store.port';
import {
  EVENTS_CHANNEL,
  EVENT_STORE_COMPONENT,
  EVENT_STORE_MIGRATIONS,
  TAKE_APPEND_LOCK,
} from './postgres-event-store-schema';
import { PostgresSubscription } from './postgres-subscription';

export interface PostgresEventStoreOptions {
  /** Label for metrics and logs, e.g. `postgres:sandbox`. */
  name: string;
  /** postgres://user@host:port/database (TLS and the rest as node-postgres reads them). */
  connectionString: string;
  /**
   * Connections of the pool: appends use one at a time (one commit in flight per process, see below), reads
   * and subscriptions the others. Each process also holds one connection for LISTEN while it has
   * subscriptions. The sum over every process must stay under the server's max_connections (100 by
   * default, a few kept for superusers): docs/STACK-NOTES.md counts the topology.
   */
  poolSize?: number;
  /**
   * A pool shared with the process's other stores on the same database (a read store): used instead of one
   * of `poolSize` of its own, and left open by `close` (its owner ends it). The listener still connects
   * with `connectionString`.
   */
  pool?: Pool;
  /** How often subscriptions look at the head without a notification (ms): notifications can be lost. */
  pollIntervalMs?: number;
  /**
   * At most this many appends share one transaction (group commit). 1: one transaction per append (what the
   * benchmark compares against).
   */
  maxAppendsPerCommit?: number;
  /** Observes each commit: number of appends and the time they waited, for metrics. */
  onCommit?(appends: number, waitedMs: number[]): void;
}

/** What a witness writes with: the append transaction's connection. */
export interface PostgresTransaction {
  query(text: string, values?: unknown[]): Promise<unknown>;
}

/**
 * Runs inside every append transaction that writes appends carrying correlation ids (see `witnessAppends`).
 * `database` is the database of the tables it writes: the store refuses a witness of another database.
 */
export interface PostgresAppendWitness {
  database: string;
  witness(correlationIds: readonly string[], transaction: PostgresTransaction): Promise<void>;
}

interface PendingAppend {
  parts: StreamAppend[];
  enqueuedAt: number;
  /** The correlation ids of its events (only gathered while a witness is set: see `witnessAppends`). */
  correlationIds?: string[];
  resolve(results: AppendResult[]): void;
  reject(error: unknown): void;
}

interface EventRow {
  position: string;
  stream_id: string;
  revision: number;
  type: string;
  data: Record<string, unknown>;
  metadata: RecordedEvent['metadata'];
}

interface InsertedRow {
  position: number;
  stream_id: string;
  revision: number;
  event_id: string;
  type: string;
  data: unknown;
  metadata: unknown;
}

const COLUMNS = 'position, stream_id, revision, type, data, metadata';

/**
 * The event store on PostgreSQL (node-postgres).
 *
 * Global positions and the sequence-gap problem. A subscriber reads `position > after` and moves its
 * checkpoint to the last position it handled; it must never see position n+1 committed while n is still to
 * come. A sequence gives no such guarantee: two transactions take 7 and 8, 8 commits first, the subscriber
 * reads 8 and never looks back at 7. This store gives positions in commit order instead: every append
 * transaction takes one transaction-level advisory lock (TAKE_APPEND_LOCK: one per schema) before it reads the head, writes
 * its events at head + 1…, and keeps the lock until its commit is visible (PostgreSQL releases locks after
 * it marks the transaction committed). Whoever reads position n therefore reads every position below it:
 * subscribers never wait for gaps, never skip, and positions are dense. The same lock makes the expected-
 * revision and event-id checks race-free: no other append runs between the check and the write (the unique
 * (stream_id, revision) and event_id constraints stay as a safety net).
 *
 * The cost is one commit at a time per log (schema). Each process groups the appends it has queued into one
 * transaction (group commit: one lock, one WAL flush for all of them, each append still checked on its own
 * and failing alone), so the serial section is paid per batch, not per append. docs/STACK-NOTES.md, "The
 * event store on PostgreSQL", has the figures and the design not taken: rows stamped with their
 * transaction id and shown only below the snapshot's xmin (emmett-postgresql), which lets commits run in
 * parallel but needs a (transaction id, position) checkpoint the port does not have, and stalls every
 * subscriber behind the database's oldest writing transaction, whoever runs it.
 *
 * Subscriptions catch up by reading batches, then wait: a commit of this process wakes them at once, a
 * NOTIFY (sent inside the append transaction, so delivered at its commit) wakes them for other processes'
 * commits, and a timer polls the head, because notifications sent while the listener was reconnecting are
 * lost. The listener has its own connection, outside the pool.
 *
 * Personal data: events arrive sealed (PersonalDataEventStore), and erasure deletes the subject's key from
 * the key store; nothing in this table is ever rewritten or deleted, exactly as with SQLite.
 */
export class PostgresEventStore implements EventStore {
  readonly name: string;
  private readonly pool: Pool;
  private readonly queue: PendingAppend[] = [];
  private writing: Promise<void> | undefined;
  private closed = false;
  private readonly subscriptions = new Set<PostgresSubscription>();
  private knownHead = 0;
  private pollTimer: NodeJS.Timeout | undefined;
  private listener: Client | undefined;
  private listenerRetry: NodeJS.Timeout | undefined;
  /** Runs in each transaction that writes appends with correlation ids (see `witnessAppends`). */
  private witness: PostgresAppendWitness | undefined;

  /** Opens the pool and brings the schema to this release's version (under the migrations' advisory lock). */
  static async open(options: PostgresEventStoreOptions): Promise<PostgresEventStore> {
    const store = new PostgresEventStore(options);
    try {
      await migrate(store.pool, EVENT_STORE_COMPONENT, EVENT_STORE_MIGRATIONS);
    } catch (error) {
      if (!options.pool) await store.pool.end();
      throw error;
    }
    return store;
  }

  private constructor(private readonly options: PostgresEventStoreOptions) {
    this.name = options.name;
    this.pool =
      options.pool ??
      new Pool({
        connectionString: options.connectionString,
        max: options.poolSize ?? 5,
        application_name: `cip:${options.name}`,
      });
    // An idle client that loses its connection emits here; without a listener the process would exit.
    if (!options.pool) {
      this.pool.on('error', () => undefined);
      // So does a checked-out one (a server restart): its query in flight fails for its caller instead.
      this.pool.on('connect', (client) => client.on('error', () => undefined));
    }
  }

  append(
    streamId: string,
    events: EventData[],
    options: { expectedRevision?: ExpectedRevision } = {},
  ): Promise<AppendResult> {
    return this.submit([{ streamId, events, expectedRevision: options.expectedRevision }]).then(
      ([result]) => result,
    );
  }

  /** One transaction for every part (and the other appends of its group commit). */
  appendMany(appends: StreamAppend[]): Promise<AppendResult[]> {
    if (new Set(appends.map((a) => a.streamId)).size !== appends.length) {
      return Promise.reject(new Error('appendMany: each stream may appear once'));
    }
    return this.submit(appends);
  }

  /**
   * Runs `witness` inside every append transaction that writes appends carrying correlation ids, after their
   * rows and before the commit, with those ids (of the appends written or replayed, not of those refused):
   * what it writes on that connection is committed exactly when those events are. The idempotency store marks
   * there the claims of keyed requests whose command ran (docs/STACK-NOTES.md, "Keyed requests after a kill
   * -9"), so its tables must be in this store's database (checked here). A witness that throws fails the
   * whole transaction: its record is a guarantee, not a hint.
   */
  async witnessAppends(witness: PostgresAppendWitness): Promise<void> {
    const { rows } = await this.pool.query<{ database: string }>('SELECT current_database() AS database');
    if (rows[0].database !== witness.database) {
      throw new Error(
        `Event store ${this.name} is in database ${rows[0].database}; a witness of its appends must write in ` +
          `the same one, not ${witness.database} (they share its transaction)`,
      );
    }
    this.witness = witness;
  }

  private submit(parts: StreamAppend[]): Promise<AppendResult[]> {
    if (this.closed) return Promise.reject(new Error(`Event store ${this.name} is closed`));
    if (parts.some((a) => !a.streamId)) return Promise.reject(new Error('streamId is required'));
    let correlationIds: string[] | undefined;
    if (this.witness) {
      for (const part of parts) {
        for (const event of part.events) {
          const id = event.metadata.correlationId;
          if (id && !correlationIds?.includes(id)) (correlationIds ??= []).push(id);
        }
      }
    }
    return new Promise((resolve, reject) => {
      this.queue.push({ parts, enqueuedAt: performance.now(), correlationIds, resolve, reject });
      this.writing ??= this.writeQueued();
    });
  }

  /**
   * One commit in flight per process: they would wait on the append lock one after the other anyway. The
   * batch is taken from the queue once the lock is held, so that every append queued while another process
   * held it joins this commit (taken before the wait, the commits of several processes stay small).
   */
  private async writeQueued(): Promise<void> {
    await new Promise((resolve) => setImmediate(resolve));
    const max = this.options.maxAppendsPerCommit ?? 500;
    try {
      while (this.queue.length) {
        let batch: PendingAppend[] = [];
        try {
          await this.commit(() => (batch = this.queue.splice(0, max)));
        } catch (error) {
          // Failed before taking a batch (no connection, no lock): what is queued fails, as it would alone.
          if (batch.length === 0) batch = this.queue.splice(0, max);
          if (batch.length === 1) {
            batch[0].reject(error);
            continue;
          }
          // Something other than a conflict failed the whole transaction (an event PostgreSQL cannot store,
          // a cut connection, a commit whose outcome is unknown): each append tries again alone, so that a bad
          // one fails by itself. Trying again is safe: an append already committed is found by its event ids
          // and answered as the first time.
          for (const append of batch) await this.commit(() => [append]).catch(append.reject);
        }
      }
    } finally {
      this.writing = undefined;
    }
  }

  /**
   * Takes the append lock, then the batch (`take`), writes its appends in one transaction and settles each
   * of them; throws (settling none) when the transaction as a whole failed.
   */
  private async commit(take: () => PendingAppend[]): Promise<void> {
    const client = await this.pool.connect();
    let failed: Error | undefined;
    try {
      await client.query(`BEGIN; ${TAKE_APPEND_LOCK}`);
      const batch = take();
      const outcomes = await this.writeBatch(client, batch);
      await client.query('COMMIT');
      const committedAt = performance.now();
      batch.forEach((append, i) => {
        const outcome = outcomes.results[i];
        if (outcome instanceof Error) append.reject(outcome);
        else append.resolve(outcome);
      });
      this.options.onCommit?.(
        batch.length,
        batch.map((a) => committedAt - a.enqueuedAt),
      );
      if (outcomes.head > this.knownHead) {
        this.knownHead = outcomes.head;
        this.wakeSubscriptions();
      }
    } catch (error) {
      failed = error instanceof Error ? error : new Error(String(error));
      await client.query('ROLLBACK').catch(() => undefined);
      throw error;
    } finally {
      // A client whose transaction failed in an unknown state is not given back to the pool.
      client.release(failed && !isServerError(failed) ? failed : undefined);
    }
  }

  /**
   * Under the append lock: reads the head, the streams' revisions and the stored events with the batch's
   * ids in one query, decides each append (replay, conflict, refused id, or written at head + 1…), and
   * inserts the rows written (with the NOTIFY) in a second one.
   */
  private async writeBatch(
    client: PoolClient,
    batch: PendingAppend[],
  ): Promise<{ results: (AppendResult[] | Error)[]; head: number }> {
    const streamIds = [...new Set(batch.flatMap((a) => a.parts.map((p) => p.streamId)))];
    const eventIds = batch.flatMap((a) => a.parts.flatMap((p) => p.events.map((e) => e.metadata.eventId)));
    const {
      rows: [state],
    } = await client.query<{
      head: string;
      revisions: [string, number | null][];
      known: (StoredEventIdentity & { eventId: string })[];
    }>({
      name: 'cip-append-state',
      text: `
        SELECT (SELECT COALESCE(max(position), 0) FROM cip_events) AS head,
               (SELECT COALESCE(json_agg(json_build_array(s.id,
                  (SELECT max(revision) FROM cip_events e WHERE e.stream_id = s.id))), '[]')
                  FROM unnest($1::text[]) AS s(id)) AS revisions,
               (SELECT COALESCE(json_agg(json_build_object('eventId', event_id, 'streamId', stream_id,
                  'revision', revision, 'position', position, 'type', type, 'data', data)), '[]')
                  FROM cip_events WHERE event_id = ANY($2::text[])) AS known`,
      values: [streamIds, eventIds],
    });
    let head = Number(state.head);
    const revisions = new Map(state.revisions.map(([id, revision]) => [id, revision ?? -1]));
    const known = new Map<string, StoredEventIdentity>(state.known.map((k) => [k.eventId, k]));
    const rows: InsertedRow[] = [];

    const results = batch.map((append): AppendResult[] | Error => {
      const replays = append.parts.map((part) =>
        replayedAppend(part.streamId, part.events, (id) => known.get(id)),
      );
      const refused = repeatedEventId(append.parts) ?? replays.find((r) => r instanceof Error);
      if (refused) return refused;
      const revisionOf = (streamId: string) => revisions.get(streamId) ?? -1;
      const conflict = append.parts.find(
        (part, i) =>
          !replays[i] &&
          !satisfiesExpectedRevision(part.expectedRevision ?? 'any', revisionOf(part.streamId)),
      );
      if (conflict) {
        return new WrongExpectedRevisionError(
          conflict.streamId,
          conflict.expectedRevision ?? 'any',
          revisionOf(conflict.streamId),
        );
      }
      let serialised: InsertedRow[];
      try {
        // Serialised here so that an event JSON cannot represent fails its own append only.
        serialised = append.parts.flatMap((part, i) => {
          if (replays[i]) return [];
          let revision = revisionOf(part.streamId);
          return part.events.map((event) => ({
            position: 0,
            stream_id: part.streamId,
            revision: ++revision,
            event_id: event.metadata.eventId,
            type: event.type,
            data: JSON.parse(JSON.stringify(event.data)),
            metadata: JSON.parse(JSON.stringify(event.metadata)),
          }));
        });
      } catch (error) {
        return error instanceof Error ? error : new Error(String(error));
      }
      for (const row of serialised) {
        row.position = ++head;
        rows.push(row);
        revisions.set(row.stream_id, row.revision);
        known.set(row.event_id, {
          streamId: row.stream_id,
          revision: row.revision,
          position: row.position,
          type: row.type,
          data: row.data,
        });
      }
      return append.parts.map((part, i) => {
        const replayed = replays[i];
        if (replayed && !(replayed instanceof Error)) return replayed;
        const last = serialised.filter((r) => r.stream_id === part.streamId).pop();
        return { nextRevision: revisionOf(part.streamId), position: last ? last.position : head };
      });
    });

    if (rows.length) {
      await client.query({
        name: 'cip-append-insert',
        text: `
          WITH inserted AS (
            INSERT INTO cip_events (position, stream_id, revision, event_id, type, data, metadata)
            SELECT position, stream_id, revision, event_id, type, data, metadata
              FROM jsonb_to_recordset($1::jsonb) AS r(position bigint, stream_id text, revision integer,
                event_id text, type text, data jsonb, metadata jsonb)
            RETURNING 1)
          SELECT pg_notify('${EVENTS_CHANNEL}', $2) FROM (SELECT count(*) FROM inserted) AS written`,
        values: [JSON.stringify(rows), String(head)],
      });
    }
    if (this.witness) {
      const witnessed = new Set<string>();
      batch.forEach((append, i) => {
        if (!(results[i] instanceof Error)) for (const id of append.correlationIds ?? []) witnessed.add(id);
      });
      if (witnessed.size) await this.witness.witness([...witnessed], client);
    }
    return { results, head };
  }

  async readStream(
    streamId: string,
    options: { fromRevision?: number; maxCount?: number } = {},
  ): Promise<RecordedEvent[]> {
    const { rows } = await this.pool.query<EventRow>({
      name: 'cip-read-stream',
      text: `SELECT ${COLUMNS} FROM cip_events WHERE stream_id = $1 AND revision >= $2
             ORDER BY revision LIMIT CAST($3 AS bigint)`,
      values: [streamId, options.fromRevision ?? 0, options.maxCount ?? null],
    });
    return rows.map(toRecorded);
  }

  async readAll(options: ReadAllOptions = {}): Promise<RecordedEvent[]> {
    const { rows } = await this.pool.query<EventRow>({
      name: 'cip-read-all',
      text: `SELECT ${COLUMNS} FROM cip_events WHERE position > $1 ORDER BY position LIMIT CAST($2 AS bigint)`,
      values: [options.after ?? 0, options.maxCount ?? 1000],
    });
    return rows.map(toRecorded);
  }

  /** The events of one category (`usr` for every `usr-…` stream) after a position, in log order (its index). */
  async readCategory(category: string, options: ReadAllOptions = {}): Promise<RecordedEvent[]> {
    const { rows } = await this.pool.query<EventRow>({
      name: 'cip-read-category',
      text: `SELECT ${COLUMNS} FROM cip_events WHERE category = $1 AND position > $2
             ORDER BY position LIMIT CAST($3 AS bigint)`,
      values: [category, options.after ?? 0, options.maxCount ?? 1000],
    });
    return rows.map(toRecorded);
  }

  async headPosition(): Promise<number> {
    const { rows } = await this.pool.query<{ head: string }>({
      name: 'cip-head',
      text: 'SELECT COALESCE(max(position), 0) AS head FROM cip_events',
    });
    const head = Number(rows[0].head);
    if (head > this.knownHead) {
      this.knownHead = head;
      this.wakeSubscriptions();
    }
    return head;
  }

  /**
   * Age of the database's oldest transaction that wrote anything (ms; 0 when none is open). An append waits
   * for the append lock's holder, so an old transaction holding it stalls every writer; an old transaction of
   * any kind also holds back vacuum. Worth a gauge and an alert. Other roles' sessions count only when the
   * store's role may see them (`pg_read_all_stats`).
   */
  async oldestOpenTransactionAgeMs(): Promise<number> {
    const { rows } = await this.pool.query<{ age: number | null }>(
      `SELECT (EXTRACT(EPOCH FROM (clock_timestamp() - min(xact_start))) * 1000)::float8 AS age
         FROM pg_stat_activity WHERE datname = current_database() AND backend_xid IS NOT NULL`,
    );
    return Math.max(0, Math.round(rows[0].age ?? 0));
  }

  subscribeToAll(options: SubscribeOptions): StoreSubscription {
    const pollMs = this.options.pollIntervalMs ?? 250;
    const subscription = new PostgresSubscription(
      (after, max) => this.readAll({ after, maxCount: max }),
      options,
      () => {
        this.subscriptions.delete(subscription);
        if (this.subscriptions.size === 0) this.stopWatching();
      },
      pollMs,
    );
    this.subscriptions.add(subscription);
    this.startWatching(pollMs);
    subscription.start();
    return subscription;
  }

  private wakeSubscriptions(): void {
    for (const subscription of this.subscriptions) subscription.wake();
  }

  private startWatching(pollMs: number): void {
    if (this.closed) return;
    this.pollTimer ??= setInterval(() => {
      this.headPosition().catch(() => undefined);
    }, pollMs);
    if (!this.listener && !this.listenerRetry) void this.listen(pollMs);
  }

  /** LISTEN on a connection of its own (a pooled one would be handed to others); reconnects after a loss. */
  private async listen(pollMs: number): Promise<void> {
    const listener = new Client({
      connectionString: this.options.connectionString,
      application_name: `cip:${this.options.name}:listener`,
    });
    this.listener = listener;
    const lost = () => {
      if (this.listener !== listener) return;
      this.listener = undefined;
      listener.end().catch(() => undefined);
      if (this.closed || this.subscriptions.size === 0) return;
      // Notifications sent meanwhile are gone: the poll timer finds their commits; try again later.
      this.listenerRetry = setTimeout(
        () => {
          this.listenerRetry = undefined;
          if (!this.closed && this.subscriptions.size) void this.listen(pollMs);
        },
        Math.min(pollMs, 1_000),
      );
    };
    listener.on('error', lost);
    listener.on('end', lost);
    listener.on('notification', () => this.wakeSubscriptions());
    try {
      await listener.connect();
      await listener.query(`LISTEN ${EVENTS_CHANNEL}`);
      if (this.listener !== listener) await listener.end();
      else this.wakeSubscriptions();
    } catch {
      lost();
    }
  }

  private stopWatching(): void {
    clearInterval(this.pollTimer);
    this.pollTimer = undefined;
    clearTimeout(this.listenerRetry);
    this.listenerRetry = undefined;
    const listener = this.listener;
    this.listener = undefined;
    listener?.end().catch(() => undefined);
  }

  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    // Appends already queued are committed before the pool closes.
    while (this.writing) await this.writing;
    await Promise.all([...this.subscriptions].map((s) => s.stop()));
    this.stopWatching();
    if (!this.options.pool) await this.pool.end();
  }
}

/** An error the server answered with (the connection is fine) rather than a broken connection. */
const isServerError = (error: Error): boolean => error instanceof DatabaseError;

function toRecorded(row: EventRow): RecordedEvent {
  return {
    streamId: row.stream_id,
    revision: row.revision,
    position: Number(row.position),
    type: row.type,
    data: row.data,
    metadata: row.metadata,
  };
}
