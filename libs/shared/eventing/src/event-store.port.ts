/**
 * The event store port: the source of truth of every context. Streams are named by resource id; the part
 * before the first '-' is the stream's category (`usr-…` is in category `usr`).
 */

export interface EventMetadata {
  /** Unique id of this event (a uuid). */
  eventId: string;
  /** ISO 8601 UTC time at which the occurrence happened (from the injected clock). */
  occurredAt: string;
  distributorId?: string;
  environment?: string;
  /** Id of the request or process the event belongs to (the request id for API calls). */
  correlationId?: string;
  /** eventId of the event (or the request id) that caused this one. */
  causationId?: string;
  schemaVersion: number;
}

/** An event as written: type PascalCase past tense, data a JSON object. */
export interface EventData<Type extends string = string, Data = Record<string, unknown>> {
  type: Type;
  data: Data;
  metadata: EventMetadata;
}

/** An event as read back from the store. */
export interface RecordedEvent<
  Type extends string = string,
  Data = Record<string, unknown>,
> extends EventData<Type, Data> {
  streamId: string;
  /** 0-based position of the event in its stream. */
  revision: number;
  /** Position in the global log: strictly increasing in commit order, never reused. */
  position: number;
}

/**
 * What the writer expects of the stream before the append: that it does not exist yet, that it exists,
 * that it is exactly at a revision (the revision of its last event), or nothing at all.
 */
export type ExpectedRevision = 'no_stream' | 'stream_exists' | 'any' | number;

export interface AppendResult {
  /** Revision of the last event appended (the stream's new revision). */
  nextRevision: number;
  /** Global position of the last event appended. */
  position: number;
}

export class WrongExpectedRevisionError extends Error {
  constructor(
    readonly streamId: string,
    readonly expected: ExpectedRevision,
    /** The stream's current revision, or -1 when it does not exist. */
    readonly actual: number,
  ) {
    super(`Stream ${streamId}: expected revision ${String(expected)}, actual ${actual}`);
    this.name = 'WrongExpectedRevisionError';
  }
}

/** One stream's part of a multi-stream append (`appendMany`). */
export interface StreamAppend {
  streamId: string;
  events: EventData[];
  expectedRevision?: ExpectedRevision;
}

export interface ReadAllOptions {
  /** Read events strictly after this global position; 0 (or absent) reads from the start. */
  after?: number;
  maxCount?: number;
}

export interface SubscribeOptions {
  /** Deliver events strictly after this global position (catch-up from there, then live). */
  after: number;
  /** Upper bound of events handed to one call of `onEvents`. */
  batchSize?: number;
  /** Called with each batch in log order; the next batch waits until the returned promise settles. */
  onEvents(events: RecordedEvent[]): Promise<void>;
  /** Called when `onEvents` throws; the subscription stops (the owner decides whether to restart). */
  onError?(error: unknown): void;
}

export interface StoreSubscription {
  /** Position of the last event handed to `onEvents` and settled. */
  readonly position: number;
  stop(): Promise<void>;
}

export interface EventStore {
  /** A label for metrics and logs, e.g. `sqlite:sandbox`. */
  readonly name: string;
  append(
    streamId: string,
    events: EventData[],
    options?: { expectedRevision?: ExpectedRevision },
  ): Promise<AppendResult>;
  /**
   * Appends to several streams atomically: every part is checked against its own expected revision, and
   * either all parts are written (in the order given, one transaction) or none is, the first conflicting
   * part's `WrongExpectedRevisionError` rejecting the whole call. One result per part, in order. Each
   * stream may appear once. A part with no events writes nothing: only its expected revision is checked
   * with the others (a stream that must not exist, checked in the same transaction). Only stores that have
   * multi-stream transactions offer it (the embedded SQLite store, in one group commit); EventStoreDB has
   * none, so its adapter leaves it out and callers keep their one-stream-at-a-time path there.
   */
  appendMany?(appends: StreamAppend[]): Promise<AppendResult[]>;
  /** Events of one stream in order; an empty array when the stream does not exist. */
  readStream(
    streamId: string,
    options?: { fromRevision?: number; maxCount?: number },
  ): Promise<RecordedEvent[]>;
  readAll(options?: ReadAllOptions): Promise<RecordedEvent[]>;
  /** Position of the newest event in the log (0 when empty). */
  headPosition(): Promise<number>;
  subscribeToAll(options: SubscribeOptions): StoreSubscription;
  close(): Promise<void>;
}

export const categoryOf = (streamId: string): string => {
  const dash = streamId.indexOf('-');
  return dash < 0 ? streamId : streamId.slice(0, dash);
};

/** Tests whether a stream at `actual` (-1: absent) satisfies `expected`. Shared by every adapter. */
export function satisfiesExpectedRevision(expected: ExpectedRevision, actual: number): boolean {
  switch (expected) {
    case 'any':
      return true;
    case 'no_stream':
      return actual === -1;
    case 'stream_exists':
      return actual >= 0;
    default:
      return actual === expected;
  }
}

/**
 * An append reused an event id already stored with other content (another stream, type or data), or only
 * some of its events were stored before. Appending the very same events again is not an error: appends are
 * idempotent by event id (`replayedAppend`), so a writer that lost the answer to an append may send it again.
 */
export class EventIdReusedError extends Error {
  constructor(
    readonly streamId: string,
    readonly eventId: string,
    reason: string,
  ) {
    super(`Stream ${streamId}: event id ${eventId} ${reason}`);
    this.name = 'EventIdReusedError';
  }
}
