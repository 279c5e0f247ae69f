import { EventData, RecordedEvent } from './event-store.port';

/**
 * The message bus port: topics carry recorded events keyed by stream id (so one stream's events stay in
 * order), consumer groups keep committed offsets, delivery is at-least-once and resumes after a restart.
 * A topic is a stream category (`usr`, `kyc`, …): the store's events reach the bus through the log, never
 * through an after-commit hook (HOUSE-STYLE.md).
 */
export interface BusMessage {
  topic: string;
  key: string;
  event: RecordedEvent;
}

export interface ConsumeOptions {
  /** Consumer group: each group sees every message once (at least), groups are independent. */
  groupId: string;
  topics: string[];
  /** Upper bound of messages handed to one call of `handle`. */
  batchSize?: number;
  /**
   * Handles a batch; its offsets are committed only after the promise resolves, so a crash or a throw
   * means the batch is delivered again. Handlers must therefore be idempotent.
   */
  handle(messages: BusMessage[]): Promise<void>;
}

export interface BusConsumer {
  readonly groupId: string;
  /** Resolves once the group has processed every message published before the call. */
  drain(timeoutMs?: number): Promise<void>;
  /**
   * The error that stopped this consumer on its own, if any: it consumes nothing more until the process
   * restarts it (readiness reports it). Buses that always resume leave it out.
   */
  failure?(): unknown;
  stop(): Promise<void>;
}

export interface MessageBus {
  /** Publishes events to a topic, each under `key` (the stream id of the resulting message). */
  publish(topic: string, messages: { key: string; event: EventData }[]): Promise<void>;
  consume(options: ConsumeOptions): Promise<BusConsumer>;
  /** Rewinds a consumer group to the start of its topics (projection rebuilds). Group must be stopped. */
  resetGroup(groupId: string, topics: string[]): Promise<void>;
  close(): Promise<void>;
}
