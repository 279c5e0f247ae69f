import { InterruptibleBackOff } from '@cip/shared/runtime';
import {
  ANY,
  BACKWARDS,
  END,
  EventStoreDBClient,
  FORWARDS,
  NO_STREAM,
  RUNNING,
  START,
  STREAM_EXISTS,
  StreamNotFoundError,
  WrongExpectedVersionError,
  jsonEvent,
  streamNameFilter,
} from '@eventstore/db-client';
import type {
  AllStreamResolvedEvent,
  AllStreamSubscription,
  AppendExpectedRevision,
  EventData as EsdbEventData,
  Position,
  ReadAllOptions as EsdbReadAllOptions,
  RecordedEvent as EsdbRecordedEvent,
} from '@eventstore/db-client';
import { randomUUID } from 'node:crypto';
import {
  AppendResult,
  EventData,
  EventMetadata,
  EventStore,
  ExpectedRevision,
  ReadAllOptions,
  RecordedEvent,
  StoreSubscription,
  SubscribeOptions,
  WrongExpectedRevisionError,
  satisfiesExpectedRevision,
} from '../event-store.port';

export interface EsdbEventStoreOptions {
  /** Shared by every scope of a process; its owner disposes it. */
  client: EventStoreDBClient;
  /** Stream names are stored as `${scopePrefix}:${streamId}`, so scopes sharing one server never mix. */
  scopePrefix: string;
  /** Label for metrics and logs, e.g. `esdb:sandbox`. */
  name: string;
  /** Observes each acknowledged append (for the append latency histogram). */
  onAppended?(durationMs: number): void;
  /** A live subscription was dropped by the server or the network; it resumes after `attempt` back-offs. */
  onSubscriptionDropped?(error: unknown, attempt: number): void;
}

/**
 * EventStoreDB's system projection that links every event whose metadata has `$correlationId` (its default
 * property) to the stream `$bc-<correlation id>`. Needs the projections subsystem (`--run-projections=System`,
 * EVENTSTORE_RUN_PROJECTIONS) and the projection enabled (`enableCorrelationIndex`).
 */
const BY_CORRELATION_ID = '$by_correlation_id';
/** The metadata property that projection reads; the port's `correlationId` is copied there on append. */
const ESDB_CORRELATION_ID = '$correlationId';
/** A projection's position over $all: `C:<commit>/P:<prepare>`. */
const PROJECTION_POSITION = /C:(-?\d+)\/P:(-?\d+)/;

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;
const MAX_SAFE_POSITION = BigInt(Number.MAX_SAFE_INTEGER);

/**
 * Event store on EventStoreDB / KurrentDB through `@eventstore/db-client`. One server holds every scope:
 * a scope's streams carry its prefix, subscriptions to `$all` filter on it server-side, and the prefix is
 * stripped from what the port returns. The port's global position is the event's commit position: every
 * event appended over gRPC is its own implicit commit, so commit and prepare positions are equal, distinct
 * and increasing, and `{commit: p, prepare: p}` resumes exactly after it.
 *
 * Requires EventStoreDB 22.6 or later (log positions on stream reads).
 *
 * No `appendMany`: EventStoreDB appends to one stream per transaction, and two appends in a row are not
 * atomic, so the adapter does not offer it and callers keep their one-stream-at-a-time path (the users
 * context reserves an email, then appends the user, releasing the reservation when that fails).
 */
export class EsdbEventStore implements EventStore {
  readonly name: string;
  private readonly client: EventStoreDBClient;
  private readonly streamPrefix: string;
  private readonly subscriptions = new Set<EsdbSubscription>();
  private closed = false;

  constructor(private readonly options: EsdbEventStoreOptions) {
    if (!/^[A-Za-z0-9_.-]+$/.test(options.scopePrefix)) {
      // A leading '$' would make the streams system streams; a ':' would make prefixes overlap.
      throw new Error(`Invalid scope prefix ${options.scopePrefix}`);
    }
    this.name = options.name;
    this.client = options.client;
    this.streamPrefix = `${options.scopePrefix}:`;
  }

  async append(
    streamId: string,
    events: EventData[],
    options: { expectedRevision?: ExpectedRevision } = {},
  ): Promise<AppendResult> {
    if (this.closed) throw new Error(`Event store ${this.name} is closed`);
    if (!streamId) throw new Error('streamId is required');
    const expected = options.expectedRevision ?? 'any';
    if (events.length === 0) return this.appendNothing(streamId, expected);
    const started = performance.now();
    let result;
    try {
      result = await this.client.appendToStream(this.qualified(streamId), events.map(toEsdbEvent), {
        expectedRevision: toEsdbExpectedRevision(expected),
      });
    } catch (error) {
      if (error instanceof WrongExpectedVersionError) {
        const actual = error.actualVersion === NO_STREAM ? -1 : Number(error.actualVersion);
        throw new WrongExpectedRevisionError(streamId, expected, actual);
      }
      throw error;
    }
    // Only a client built with throwOnAppendFailure=false gets here after a conflict.
    if (!result.success) {
      throw new WrongExpectedRevisionError(streamId, expected, Number(result.nextExpectedRevision));
    }
    this.options.onAppended?.(performance.now() - started);
    const nextRevision = Number(result.nextExpectedRevision);
    const position = result.position
      ? toPortPosition(result.position, streamId)
      : // The server may acknowledge without a position (no_position); the stream still tells it.
        await this.positionOf(streamId, nextRevision);
    return { nextRevision, position };
  }

  /** An empty append writes nothing, but still answers whether the expectation holds (as SQLite does). */
  private async appendNothing(streamId: string, expected: ExpectedRevision): Promise<AppendResult> {
    const last = await this.lastEventOf(streamId);
    const actual = last?.revision ?? -1;
    if (!satisfiesExpectedRevision(expected, actual)) {
      throw new WrongExpectedRevisionError(streamId, expected, actual);
    }
    return { nextRevision: actual, position: last?.position ?? (await this.headPosition()) };
  }

  private async positionOf(streamId: string, revision: number): Promise<number> {
    const [event] = await this.readStream(streamId, { fromRevision: revision, maxCount: 1 });
    if (!event) throw new Error(`Stream ${streamId} has no event at revision ${revision}`);
    return event.position;
  }

  private async lastEventOf(streamId: string): Promise<RecordedEvent | null> {
    try {
      const read = this.client.readStream(this.qualified(streamId), {
        direction: BACKWARDS,
        fromRevision: END,
        maxCount: 1,
      });
      for await (const resolved of read) {
        if (resolved.event) return this.toRecorded(resolved.event);
      }
      return null;
    } catch (error) {
      if (error instanceof StreamNotFoundError) return null;
      throw error;
    }
  }

  async readStream(
    streamId: string,
    options: { fromRevision?: number; maxCount?: number } = {},
  ): Promise<RecordedEvent[]> {
    if (options.maxCount !== undefined && options.maxCount <= 0) return [];
    const events: RecordedEvent[] = [];
    try {
      const read = this.client.readStream(this.qualified(streamId), {
        direction: FORWARDS,
        fromRevision: BigInt(options.fromRevision ?? 0),
        maxCount: options.maxCount,
      });
      for await (const resolved of read) {
        if (resolved.event) events.push(this.toRecorded(resolved.event));
      }
    } catch (error) {
      if (error instanceof StreamNotFoundError) return [];
      throw error;
    }
    return events;
  }

  async readAll(options: ReadAllOptions = {}): Promise<RecordedEvent[]> {
    const after = options.after ?? 0;
    const maxCount = options.maxCount ?? 1000;
    const events: RecordedEvent[] = [];
    if (maxCount <= 0) return events;
    // A read of $all starts at its position inclusively: the event at `after` comes back and is skipped.
    const from = after > 0 ? toLogPosition(after) : START;
    for await (const event of this.scopeEvents({ fromPosition: from, direction: FORWARDS })) {
      if (event.position <= after) continue;
      events.push(event);
      if (events.length >= maxCount) break;
    }
    return events;
  }

  async headPosition(): Promise<number> {
    for await (const event of this.scopeEvents({ fromPosition: END, direction: BACKWARDS })) {
      return event.position;
    }
    return 0;
  }

  /**
   * This scope's events of $all, in the requested direction. @eventstore/db-client 6.2 sends every $all
   * read with "no filter" (only subscriptions take a server-side filter), so reads filter on the prefix
   * here; system events (`$…` streams) never carry it. Leaving the loop early cancels the gRPC call.
   */
  private async *scopeEvents(options: EsdbReadAllOptions): AsyncGenerator<RecordedEvent> {
    const read = this.client.readAll({ ...options, resolveLinkTos: false });
    let exhausted = false;
    try {
      for await (const resolved of read) {
        if (resolved.event?.streamId.startsWith(this.streamPrefix)) yield this.toRecorded(resolved.event);
      }
      exhausted = true;
    } finally {
      // Destroying the stream (what `break` does) leaves the call open on the server until cancelled. A
      // failed cancel (the call never started) must not hide the error that got us here.
      if (!exhausted) await read.cancel().catch(() => undefined);
    }
  }

  subscribeToAll(options: SubscribeOptions): StoreSubscription {
    if (this.closed) throw new Error(`Event store ${this.name} is closed`);
    const subscription = new EsdbSubscription(
      (after, bufferSize) =>
        this.client.subscribeToAll(
          {
            fromPosition: after > 0 ? toLogPosition(after) : START,
            resolveLinkTos: false,
            filter: streamNameFilter({ prefixes: [this.streamPrefix] }),
          },
          { highWaterMark: bufferSize },
        ),
      (event) => (event.streamId.startsWith(this.streamPrefix) ? this.toRecorded(event) : null),
      options,
      (error, attempt) => this.options.onSubscriptionDropped?.(error, attempt),
      () => this.subscriptions.delete(subscription),
    );
    this.subscriptions.add(subscription);
    return subscription;
  }

  /**
   * Starts the `$by_correlation_id` system projection (`hasEventsCorrelatedWith`) unless it runs already: the
   * only one the platform needs, so the deployment runs the projections subsystem without starting the other
   * standard ones (each of which writes a link per event).
   */
  async enableCorrelationIndex(): Promise<void> {
    const status = await this.client.getProjectionStatus(BY_CORRELATION_ID);
    if (status.projectionStatus !== RUNNING) await this.client.enableProjection(BY_CORRELATION_ID);
  }

  /**
   * Whether any event carrying `correlationId` (a request id) was appended, in any scope: asked about a keyed
   * request whose gateway died before storing its outcome (MongoIdempotencyStore), so the answer must not be
   * "no" while it is "not yet". Read from `$bc-<correlationId>` (the `$by_correlation_id` projection), once
   * the projection has processed the log up to its last event appended before the question: the projection
   * is asynchronous, and its stream being empty only means "never appended" once it has got that far.
   * Throws when the projection does not run or does not get there within `timeoutMs`: unknown is not "no".
   */
  async hasEventsCorrelatedWith(correlationId: string, timeoutMs = 5_000): Promise<boolean> {
    const head = await this.lastUserEventPosition();
    if (head === undefined) return false;
    const deadline = Date.now() + timeoutMs;
    for (;;) {
      const status = await this.client.getProjectionStatus(BY_CORRELATION_ID);
      if (status.projectionStatus !== RUNNING) {
        throw new Error(
          `${BY_CORRELATION_ID} is ${status.projectionStatus || 'not running'}: run EventStoreDB with ` +
            '--run-projections=System and let the platform enable it',
        );
      }
      const at = PROJECTION_POSITION.exec(status.position);
      if (at && BigInt(at[1]) >= head) break;
      if (Date.now() > deadline) {
        throw new Error(`${BY_CORRELATION_ID} is behind the log (at ${status.position}, head ${head})`);
      }
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
    try {
      const read = this.client.readStream(`$bc-${correlationId}`, {
        fromRevision: START,
        maxCount: 1,
        resolveLinkTos: false,
      });
      for await (const linked of read) if (linked.event || linked.link) return true;
      return false;
    } catch (error) {
      if (error instanceof StreamNotFoundError) return false;
      throw error;
    }
  }

  /**
   * The commit position of the last event of $all not in a system stream (those are the projections' own
   * links and the server's statistics), or undefined when there is none.
   */
  private async lastUserEventPosition(): Promise<bigint | undefined> {
    const read = this.client.readAll({ fromPosition: END, direction: BACKWARDS, resolveLinkTos: false });
    let exhausted = false;
    try {
      for await (const resolved of read) {
        const event = resolved.event;
        if (event && !event.streamId.startsWith('$') && event.position) return event.position.commit;
      }
      exhausted = true;
      return undefined;
    } finally {
      if (!exhausted) await read.cancel().catch(() => undefined);
    }
  }

  /**
   * Caps a stream of this scope to its last `maxCount` events (EventStoreDB `$maxCount` metadata), for
   * bookkeeping streams such as checkpoints that only their last event matters in.
   */
  async setMaxCount(streamId: string, maxCount: number): Promise<void> {
    await this.client.setStreamMetadata(this.qualified(streamId), { maxCount });
  }

  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    await Promise.all([...this.subscriptions].map((s) => s.stop()));
  }

  private qualified(streamId: string): string {
    return `${this.streamPrefix}${streamId}`;
  }

  private toRecorded(event: EsdbRecordedEvent): RecordedEvent {
    const streamId = event.streamId.slice(this.streamPrefix.length);
    if (!event.isJson || !isJsonObject(event.data) || !isJsonObject(event.metadata)) {
      throw new Error(`Event ${event.id} of ${event.streamId} is not a JSON event with JSON metadata`);
    }
    return {
      streamId,
      revision: Number(event.revision),
      position: toPortPosition(event.position, streamId),
      type: event.type,
      data: event.data,
      metadata: fromEsdbMetadata(event.metadata),
    };
  }
}

/**
 * A catch-up subscription to this scope's part of $all that resumes by itself: the server drops a
 * subscription whose consumer is too slow (a handler holding a batch stops the reading, on purpose) or
 * whose connection breaks, and it is reopened after the last settled position. Only a failure of
 * `onEvents` (or an event that cannot be read) ends it, through `onError`, as the port says.
 */
class EsdbSubscription implements StoreSubscription {
  private current: number;
  private stopped = false;
  private buffer: EventBuffer | null = null;
  private readonly backOff = new InterruptibleBackOff();
  private readonly loop: Promise<void>;

  constructor(
    private readonly open: (after: number, bufferSize: number) => AllStreamSubscription,
    private readonly convert: (event: EsdbRecordedEvent) => RecordedEvent | null,
    private readonly options: SubscribeOptions,
    private readonly onDropped: (error: unknown, attempt: number) => void,
    private readonly onStopped: () => void,
  ) {
    this.current = options.after;
    this.loop = this.run();
  }

  get position(): number {
    return this.current;
  }

  private async run(): Promise<void> {
    const batchSize = this.options.batchSize ?? 500;
    let attempt = 0;
    try {
      while (!this.stopped) {
        let buffer: EventBuffer | null = null;
        try {
          buffer = new EventBuffer(this.open(this.current, batchSize), batchSize);
          this.buffer = buffer;
          for (;;) {
            const resolved = await buffer.take(batchSize);
            if (this.stopped) return;
            if (resolved.length === 0) throw new Error('The server ended the subscription');
            attempt = 0;
            if (!(await this.deliver(resolved))) return;
          }
        } catch (error) {
          if (this.stopped) return;
          attempt++;
          this.onDropped(error, attempt);
          await this.backOff.wait(Math.min(5000, 100 * 2 ** Math.min(attempt, 6)));
        } finally {
          this.buffer = null;
          await buffer?.close();
        }
      }
    } finally {
      this.onStopped();
    }
  }

  /** Hands a batch to `onEvents`; false when it failed and the subscription is over. */
  private async deliver(resolved: AllStreamResolvedEvent[]): Promise<boolean> {
    try {
      const events: RecordedEvent[] = [];
      for (const { event } of resolved) {
        const recorded = event && this.convert(event);
        if (recorded) events.push(recorded);
      }
      if (events.length === 0) return true;
      await this.options.onEvents(events);
      this.current = events[events.length - 1].position;
      return true;
    } catch (error) {
      this.stopped = true;
      this.options.onError?.(error);
      return false;
    }
  }

  async stop(): Promise<void> {
    this.stopped = true;
    this.buffer?.interrupt();
    this.backOff.interrupt();
    await this.loop;
  }
}

/**
 * Turns the subscription's readable stream into batches. It reads until `capacity` events wait, then
 * pauses the stream: the readable buffer fills, gRPC flow control stops the server, and no more than a
 * batch (plus the stream's buffer) is held in memory while the handler runs.
 */
class EventBuffer {
  private readonly items: AllStreamResolvedEvent[] = [];
  private failure: { error: unknown } | null = null;
  private ended = false;
  private notify: (() => void) | null = null;

  constructor(
    private readonly stream: AllStreamSubscription,
    private readonly capacity: number,
  ) {
    stream.on('data', (event: AllStreamResolvedEvent) => {
      this.items.push(event);
      if (this.items.length >= this.capacity) stream.pause();
      this.signal();
    });
    stream.on('error', (error: Error) => {
      this.failure = { error };
      this.signal();
    });
    stream.on('close', () => {
      this.ended = true;
      this.signal();
    });
  }

  /** Waits for at least one event and takes up to `max`; throws the stream's error; [] once it ended. */
  async take(max: number): Promise<AllStreamResolvedEvent[]> {
    while (this.items.length === 0) {
      if (this.failure) throw this.failure.error;
      if (this.ended) return [];
      await new Promise<void>((resolve) => (this.notify = resolve));
    }
    const batch = this.items.splice(0, max);
    if (this.stream.isPaused() && this.items.length < this.capacity) this.stream.resume();
    return batch;
  }

  /** Ends a pending `take` (the subscription is stopping). */
  interrupt(): void {
    this.ended = true;
    this.signal();
  }

  async close(): Promise<void> {
    // unsubscribe() cancels the gRPC call (it rejects only when the call never started, which leaves nothing
    // to cancel); destroying the stream releases what it still buffers.
    await this.stream.unsubscribe().catch(() => undefined);
    this.stream.destroy();
  }

  private signal(): void {
    const notify = this.notify;
    this.notify = null;
    notify?.();
  }
}

function toEsdbEvent(event: EventData): EsdbEventData {
  return jsonEvent({
    // The event id makes a retried append idempotent on the server (same ids at the same revision).
    id: UUID.test(event.metadata.eventId) ? event.metadata.eventId : randomUUID(),
    type: event.type,
    data: event.data as Record<string, unknown>,
    // Also under EventStoreDB's own name, which `$by_correlation_id` indexes (`hasEventsCorrelatedWith`).
    metadata: event.metadata.correlationId
      ? { ...event.metadata, [ESDB_CORRELATION_ID]: event.metadata.correlationId }
      : event.metadata,
  });
}

/** The port's metadata of a stored event: without the copy of its correlation id made for EventStoreDB. */
function fromEsdbMetadata(stored: Record<string, unknown>): EventMetadata {
  if (!(ESDB_CORRELATION_ID in stored)) return stored as unknown as EventMetadata;
  const metadata = { ...stored };
  delete metadata[ESDB_CORRELATION_ID];
  return metadata as unknown as EventMetadata;
}

function toEsdbExpectedRevision(expected: ExpectedRevision): AppendExpectedRevision {
  switch (expected) {
    case 'any':
      return ANY;
    case 'no_stream':
      return NO_STREAM;
    case 'stream_exists':
      return STREAM_EXISTS;
    default:
      if (!Number.isInteger(expected) || expected < 0) {
        throw new Error(`Invalid expected revision ${expected}`);
      }
      return BigInt(expected);
  }
}

const toLogPosition = (position: number): Position => ({
  commit: BigInt(position),
  prepare: BigInt(position),
});

function toPortPosition(position: Position | undefined, streamId: string): number {
  // Servers before 22.6 send no position (or the maximum uint64) with stream reads.
  if (!position || position.commit < 0n || position.commit > MAX_SAFE_POSITION) {
    throw new Error(
      `An event of ${streamId} came without a usable log position (EventStoreDB 22.6+ is required)`,
    );
  }
  return Number(position.commit);
}

function isJsonObject(value: unknown): value is Record<string, unknown> {
  return (
    typeof value === 'object' && value !== null && !Array.isArray(value) && !(value instanceof Uint8Array)
  );
}
