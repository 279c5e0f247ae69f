import { GroupCommit, type SqliteDatabase } from '@cip/shared/runtime';
import type { Statement } from 'better-sqlite3';
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
import { repeatedEventId, replayedAppend, type StoredEventIdentity } from '../event-id-replay';
import { LogSubscription } from './log-subscription';
import { everyTick } from './shared-ticker';
import { WalGrowth } from './wal-growth';

/** How many recent events `readAllSync` keeps parsed for the subscriptions (see `tail`). */
const TAIL_EVENTS = 5_000;

interface PendingPart {
  streamId: string;
  events: EventData[];
  rows: { type: string; data: string; metadata: string }[];
  expected: ExpectedRevision;
}

/**
 * One call of `append` (one part) or `appendMany` (its parts, written all or none), or another writer's
 * statement riding on the group commit (`commitAlongside`: no parts, a `write`).
 */
interface PendingAppend {
  parts: PendingPart[];
  enqueuedAt: number;
  write?: () => void;
  /** The correlation ids of its events (only gathered while a witness is set: see `witnessAppends`). */
  correlationIds?: string[];
}

interface EventRow {
  position: number;
  stream_id: string;
  revision: number;
  type: string;
  data: string;
  metadata: string;
}

export interface SqliteEventStoreOptions {
  /** Label for metrics and logs. */
  name: string;
  /**
   * How often the head watcher looks for events appended by another process sharing the file (ms): one
   * query of the log's head per tick, whatever the number of subscriptions, waking them all when it moved.
   * The default suits one process and an occasional CLI; the services of the split topology, which append
   * to the file each other's consumers follow, use a shorter one (`embeddedServiceOptions`).
   */
  pollIntervalMs?: number;
  /**
   * How long a live subscription lets new commits gather before reading them, when woken less than this
   * after its last batch (under load). This turns many small consumer batches (each a read-model
   * transaction) into a few larger ones, at the cost of that much extra projection lag under load; an event
   * after a quiet spell is read at once. 0: always read at once.
   */
  subscriptionCoalesceMs?: number;
  /** Observes each group commit: number of appends and the time they waited, for metrics. */
  onCommit?(appends: number, waitedMs: number[]): void;
}

/**
 * Embedded event store on SQLite. Appends are queued and committed together in one transaction on the
 * next turn of the event loop (group commit): one fsync acknowledges every append of the batch, which is
 * how many concurrent writers get far past the disk's serial fsync rate. Each append of a batch is checked
 * against its expected revision on its own: a conflicting append fails without failing the others.
 */
export class SqliteEventStore implements EventStore {
  readonly name: string;
  private readonly appends: GroupCommit<PendingAppend, AppendResult[]>;
  private closed = false;
  private readonly subscriptions = new Set<LogSubscription>();
  private readonly insertEvent: Statement;
  private readonly streamRevision: Statement;
  private readonly selectStream: Statement;
  private readonly selectAll: Statement;
  private readonly selectHead: Statement;
  private readonly selectByEventId: Statement;
  /** Grows the WAL ahead of the commits (see WalGrowth); dropped after an error, as it is only a speed-up. */
  private walGrowth: WalGrowth | undefined;
  /**
   * The events the subscriptions read last, parsed: exactly every event with a position in
   * (tailFrom, last position of `tail`]. Each consumer group has its own subscription reading the same recent
   * events a moment after the others; they share this instead of each selecting and parsing them again.
   * Committed events never change and positions are assigned by the single writer in commit order, so a
   * position seen implies every smaller one was already visible: the range stays complete as it grows.
   * Readers share the event objects (consumers never modify what they are given).
   */
  private tail: RecordedEvent[] = [];
  private tailFrom = 0;
  /**
   * The highest position the subscriptions were told of (a commit of this process, or the head watcher's or
   * `headPosition`'s last look): a head above it means another process appended, and they are woken.
   */
  private knownHead = 0;
  /** Stops the head watcher, which runs while there are subscriptions (see `pollIntervalMs`). */
  private stopHeadWatcher: (() => void) | undefined;
  /** Runs in each transaction that writes appends with correlation ids (see `witnessAppends`). */
  private witness: ((correlationIds: ReadonlySet<string>) => void) | undefined;

  constructor(
    private readonly db: SqliteDatabase,
    private readonly options: SqliteEventStoreOptions,
  ) {
    this.name = options.name;
    db.exec(`
      CREATE TABLE IF NOT EXISTS events (
        position  INTEGER PRIMARY KEY,
        stream_id TEXT    NOT NULL,
        revision  INTEGER NOT NULL,
        type      TEXT    NOT NULL,
        data      TEXT    NOT NULL,
        metadata  TEXT    NOT NULL,
        UNIQUE (stream_id, revision)
      );
    `);
    // Appends are idempotent by event id: where an append may be a replay, its ids are looked up before it is
    // written. The id is a column of its own, written from the append (an index on the metadata's JSON cost
    // the group commit a parse per event: STACK-NOTES, "Appends idempotent by event id"); a file from before
    // it gets the column filled once, when it is first opened.
    // Under the write lock (an immediate transaction), read again: processes sharing the file (the split
    // topology) open it at once, and only the first adds the column.
    const hasEventId = () =>
      (db.prepare('PRAGMA table_info(events)').all() as { name: string }[]).some(
        (column) => column.name === 'event_id',
      );
    if (!hasEventId()) {
      db.transaction(() => {
        if (hasEventId()) return;
        db.exec('ALTER TABLE events ADD COLUMN event_id TEXT');
        db.exec("UPDATE events SET event_id = json_extract(metadata, '$.eventId')");
      }).immediate();
    }
    db.exec(`
      DROP INDEX IF EXISTS events_event_id;
      CREATE INDEX IF NOT EXISTS events_by_event_id ON events (event_id);
    `);
    this.insertEvent = db.prepare(
      'INSERT INTO events (stream_id, revision, type, data, metadata, event_id) VALUES (?, ?, ?, ?, ?, ?)',
    );
    this.streamRevision = db
      .prepare('SELECT revision FROM events WHERE stream_id = ? ORDER BY revision DESC LIMIT 1')
      .pluck();
    // A bound LIMIT is CAST, never bare: docs/STACK-NOTES.md, "A bare bound LIMIT prepares the statement again".
    this.selectStream = db.prepare(
      'SELECT * FROM events WHERE stream_id = ? AND revision >= ? ORDER BY revision LIMIT CAST(? AS INTEGER)',
    );
    this.selectAll = db.prepare(
      'SELECT * FROM events WHERE position > ? ORDER BY position LIMIT CAST(? AS INTEGER)',
    );
    this.selectHead = db.prepare('SELECT COALESCE(MAX(position), 0) FROM events').pluck();
    this.selectByEventId = db.prepare(
      'SELECT stream_id, revision, position, type, data FROM events WHERE event_id = ?',
    );
    this.walGrowth = WalGrowth.of(db);
    this.appends = new GroupCommit(
      (batch) => this.writeAppends(batch),
      (batch) => {
        const committedAt = performance.now();
        const appends = batch.filter((a) => !a.write);
        this.options.onCommit?.(
          appends.length,
          appends.map((a) => committedAt - a.enqueuedAt),
        );
        this.wakeSubscriptions();
      },
    );
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

  /**
   * The parts go into the same group commit as one item: checked and written together inside its
   * transaction, so a reservation and the entity it guards cost one fsync wait, not two in a row.
   */
  appendMany(appends: StreamAppend[]): Promise<AppendResult[]> {
    if (new Set(appends.map((a) => a.streamId)).size !== appends.length) {
      return Promise.reject(new Error('appendMany: each stream may appear once'));
    }
    return this.submit(appends);
  }

  /**
   * Runs `write` (statements on this store's connection, such as an idempotency outcome) inside the next
   * group commit's transaction, after its appends: it shares their fsync instead of paying its own. Resolves
   * once that transaction is durable; a `write` that throws fails alone (its statement is rolled back).
   */
  commitAlongside(write: () => void): Promise<void> {
    if (this.closed) return Promise.reject(new Error(`Event store ${this.name} is closed`));
    return this.appends.submit({ parts: [], enqueuedAt: performance.now(), write }).then(() => undefined);
  }

  /**
   * Runs `witness` inside every group commit's transaction that wrote appends carrying correlation ids, after
   * them, with those ids: what it writes on this connection is durable exactly when those events are. The
   * idempotency store records there that a keyed request's command ran (docs/STACK-NOTES.md, "Keyed requests
   * after a kill -9"). A witness that throws fails the whole commit: its record is a guarantee, not a hint.
   */
  witnessAppends(witness: (correlationIds: ReadonlySet<string>) => void): void {
    this.witness = witness;
  }

  private submit(appends: StreamAppend[]): Promise<AppendResult[]> {
    if (this.closed) return Promise.reject(new Error(`Event store ${this.name} is closed`));
    if (appends.some((a) => !a.streamId)) return Promise.reject(new Error('streamId is required'));
    let parts: PendingPart[];
    try {
      // Serialise before queueing so that a bad event fails its own append, never the whole batch.
      parts = appends.map((append) => ({
        streamId: append.streamId,
        events: append.events,
        expected: append.expectedRevision ?? 'any',
        rows: append.events.map((e) => ({
          type: e.type,
          data: JSON.stringify(e.data),
          metadata: JSON.stringify(e.metadata),
        })),
      }));
    } catch (error) {
      return Promise.reject(error);
    }
    let correlationIds: string[] | undefined;
    if (this.witness) {
      for (const append of appends) {
        for (const event of append.events) {
          const id = event.metadata.correlationId;
          if (id && !correlationIds?.includes(id)) (correlationIds ??= []).push(id);
        }
      }
    }
    return this.appends.submit({ parts, enqueuedAt: performance.now(), correlationIds });
  }

  /**
   * Writes a group commit's appends in one transaction, each checked against its expected revisions: all
   * parts of an append are checked before any of its rows is written, so a conflict fails that append
   * alone and writes none of its parts.
   */
  private writeAppends(batch: PendingAppend[]): (AppendResult[] | Error)[] {
    const outcomes: (AppendResult[] | Error)[] = [];
    let appendedUpTo = 0;
    let witnessed: Set<string> | undefined;
    const commit = this.db.transaction(() => {
      this.growWal();
      const revisions = new Map<string, number>();
      const revisionOf = (streamId: string) => revisions.get(streamId) ?? this.currentRevision(streamId);
      const writtenIds = new Map<string, StoredEventIdentity>();
      const storedId = (eventId: string) => writtenIds.get(eventId) ?? this.storedIdentity(eventId);
      for (const append of batch) {
        if (append.write) {
          outcomes.push(runWrite(append.write));
          continue;
        }
        // A replay is looked for only where one could be written twice: an append whose expected revision is a
        // number or "no stream" and holds now cannot be a replay (its first run moved the stream past it), so its
        // ids are not looked up (the lookup, per event, cost a third of a group commit's CPU: STACK-NOTES).
        const actual = append.parts.map((part) => revisionOf(part.streamId));
        const replays = append.parts.map((part, i) =>
          mayBeReplay(part.expected, actual[i])
            ? replayedAppend(part.streamId, part.events, storedId)
            : undefined,
        );
        const refused = repeatedEventId(append.parts) ?? replays.find((r) => r instanceof Error);
        if (refused) {
          outcomes.push(refused);
          continue;
        }
        const conflict = append.parts.find(
          (part, i) => !replays[i] && !satisfiesExpectedRevision(part.expected, actual[i]),
        );
        if (conflict) {
          outcomes.push(
            new WrongExpectedRevisionError(
              conflict.streamId,
              conflict.expected,
              revisionOf(conflict.streamId),
            ),
          );
          continue;
        }
        outcomes.push(
          append.parts.map((part, i) => {
            const replayed = replays[i];
            if (replayed && !(replayed instanceof Error)) return replayed;
            let revision = actual[i];
            let lastPosition = 0;
            for (const [n, row] of part.rows.entries()) {
              revision++;
              lastPosition = Number(
                this.insertEvent.run(
                  part.streamId,
                  revision,
                  row.type,
                  row.data,
                  row.metadata,
                  part.events[n].metadata.eventId,
                ).lastInsertRowid,
              );
              const event = part.events[n];
              writtenIds.set(event.metadata.eventId, {
                streamId: part.streamId,
                revision,
                position: lastPosition,
                type: event.type,
                data: event.data,
              });
            }
            revisions.set(part.streamId, revision);
            if (lastPosition > appendedUpTo) appendedUpTo = lastPosition;
            return { nextRevision: revision, position: part.rows.length ? lastPosition : this.head() };
          }),
        );
        for (const id of append.correlationIds ?? []) (witnessed ??= new Set()).add(id);
      }
      if (witnessed && this.witness) this.witness(witnessed);
    });
    // IMMEDIATE: the write lock is taken at BEGIN, where busy_timeout applies. A deferred transaction reads the
    // revisions first, and SQLite does not wait when a reader then asks for the lock another connection (the
    // CLI's) holds: the whole batch failed at once with SQLITE_BUSY.
    commit.immediate();
    // Positions are given under the write lock in commit order: every event up to here is committed, this
    // process's and any other's. The commit's wake-up tells the subscriptions.
    if (appendedUpTo > this.knownHead) this.knownHead = appendedUpTo;
    return outcomes;
  }

  /** Inside the transaction, before its frames are written: the write lock is held (see WalGrowth). */
  private growWal(): void {
    try {
      this.walGrowth?.extend();
    } catch {
      this.walGrowth?.close();
      this.walGrowth = undefined;
    }
  }

  private storedIdentity(eventId: string): StoredEventIdentity | undefined {
    const row = this.selectByEventId.get(eventId) as
      Pick<EventRow, 'stream_id' | 'revision' | 'position' | 'type' | 'data'> | undefined;
    return row
      ? {
          streamId: row.stream_id,
          revision: row.revision,
          position: row.position,
          type: row.type,
          data: JSON.parse(row.data),
        }
      : undefined;
  }

  private currentRevision(streamId: string): number {
    const revision = this.streamRevision.get(streamId) as number | undefined;
    return revision ?? -1;
  }

  private head(): number {
    return this.selectHead.get() as number;
  }

  async readStream(
    streamId: string,
    options: { fromRevision?: number; maxCount?: number } = {},
  ): Promise<RecordedEvent[]> {
    const rows = this.selectStream.all(
      streamId,
      options.fromRevision ?? 0,
      options.maxCount ?? Number.MAX_SAFE_INTEGER,
    ) as EventRow[];
    return rows.map(toRecorded);
  }

  async readAll(options: ReadAllOptions = {}): Promise<RecordedEvent[]> {
    return this.readAllSync(options.after ?? 0, options.maxCount ?? 1000);
  }

  /** Synchronous read used by subscriptions (better-sqlite3 is synchronous; no await in the hot loop). */
  readAllSync(after: number, maxCount: number): RecordedEvent[] {
    const tailTo = this.tail.length ? this.tail[this.tail.length - 1].position : this.tailFrom;
    if (after < this.tailFrom || after > tailTo) {
      // Outside what is cached (a consumer catching up from far behind): read it, and cache it from there.
      const read = this.selectAfter(after, maxCount);
      if (read.length) {
        this.tail = read;
        this.tailFrom = after;
      }
      return read;
    }
    const first = this.firstAfter(after);
    const cached = this.tail.slice(first, first + maxCount);
    if (cached.length === maxCount) return cached;
    const newer = this.selectAfter(tailTo, maxCount - cached.length);
    if (newer.length) {
      this.tail.push(...newer);
      if (this.tail.length > TAIL_EVENTS) {
        const dropped = this.tail.length - TAIL_EVENTS;
        this.tailFrom = this.tail[dropped - 1].position;
        this.tail = this.tail.slice(dropped);
      }
    }
    return cached.concat(newer);
  }

  private selectAfter(after: number, maxCount: number): RecordedEvent[] {
    return (this.selectAll.all(after, maxCount) as EventRow[]).map(toRecorded);
  }

  /** The index in `tail` of the first event after `position` (binary search: positions ascend). */
  private firstAfter(position: number): number {
    let low = 0;
    let high = this.tail.length;
    while (low < high) {
      const mid = (low + high) >>> 1;
      if (this.tail[mid].position <= position) low = mid + 1;
      else high = mid;
    }
    return low;
  }

  /**
   * Also wakes the subscriptions when the head moved past what they were told of: whoever asks for the head
   * (a consumer's `drain`, read-your-writes before a list) gets another process's appends read now rather
   * than at the next tick of the head watcher.
   */
  async headPosition(): Promise<number> {
    return this.watchHead();
  }

  private watchHead(): number {
    const head = this.head();
    if (head > this.knownHead) {
      this.knownHead = head;
      this.wakeSubscriptions();
    }
    return head;
  }

  private wakeSubscriptions(): void {
    for (const subscription of this.subscriptions) subscription.wake(this.knownHead);
  }

  subscribeToAll(options: SubscribeOptions): StoreSubscription {
    const subscription = new LogSubscription(
      (after, max) => this.readAllSync(after, max),
      options,
      () => {
        this.subscriptions.delete(subscription);
        if (this.subscriptions.size === 0) this.stopWatchingHead();
      },
      this.options.subscriptionCoalesceMs,
    );
    this.subscriptions.add(subscription);
    this.stopHeadWatcher ??= everyTick(this.options.pollIntervalMs ?? 200, () => this.tickHeadWatcher());
    subscription.start();
    return subscription;
  }

  private tickHeadWatcher(): void {
    try {
      this.watchHead();
    } catch {
      // The file is busy or closing: the next tick looks again.
    }
  }

  private stopWatchingHead(): void {
    this.stopHeadWatcher?.();
    this.stopHeadWatcher = undefined;
  }

  async close(): Promise<void> {
    if (this.closed) return;
    // Let appends already queued reach the disk before the store closes.
    if (this.appends.pending) this.appends.flush();
    this.closed = true;
    this.walGrowth?.close();
    await Promise.all([...this.subscriptions].map((s) => s.stop()));
    this.stopWatchingHead();
  }
}

function runWrite(write: () => void): AppendResult[] | Error {
  try {
    write();
    return [];
  } catch (error) {
    return error instanceof Error ? error : new Error(String(error));
  }
}

function toRecorded(row: EventRow): RecordedEvent {
  return {
    streamId: row.stream_id,
    revision: row.revision,
    position: row.position,
    type: row.type,
    data: JSON.parse(row.data),
    metadata: JSON.parse(row.metadata),
  };
}

/**
 * Whether an append could be a replay of one already written: not when its expected revision is exact (a
 * number or `no_stream`) and holds, since the first run of the same append moved the stream past it.
 */
function mayBeReplay(expected: ExpectedRevision, actual: number): boolean {
  if (expected === 'no_stream' || typeof expected === 'number') {
    return !satisfiesExpectedRevision(expected, actual);
  }
  return true;
}
