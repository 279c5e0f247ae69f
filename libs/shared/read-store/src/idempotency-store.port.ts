import type { IdempotentRun } from '@cip/shared/contracts';

/**
 * Storage of idempotent request outcomes (spec part 4): the first request with a given identity claims
 * it, runs, and stores its status, headers and body for the retention period; identical requests get the
 * stored outcome, or `in progress` while the first is still running. A claim whose process died is
 * taken over once its lease has passed, so a crash never blocks a key for the whole retention.
 */
export interface StoredResponse {
  status: number;
  headers: Record<string, string>;
  body: string;
}

export type IdempotencyRecord =
  | { state: 'in_flight'; leaseUntil: number }
  | { state: 'completed'; response: StoredResponse; expiresAt: number }
  /**
   * The claimed request's command ran (its events are durable) and its process died before its outcome
   * was stored: it must not run again, and there is no answer to replay.
   */
  | { state: 'outcome_lost' };

/** `hostRun`'s answer: run the command, then call `done`; or do not run it. */
export type HostedRun = { done(): void } | { refused: 'in_flight' | 'outcome_lost' };

export type ClaimResult = { claimed: true } | { claimed: false; record: IdempotencyRecord };

export interface IdempotencyStore {
  /**
   * Atomically claims `key` unless a live record exists (completed and unexpired, or in flight within its lease).
   * `correlationId` is the request id its command's events will carry: a store whose claims outlive their
   * process (MongoDB) keeps it, to ask the event store whether a claim whose lease lapsed ran.
   */
  claim(key: string, nowMs: number, leaseMs: number, correlationId?: string): Promise<ClaimResult>;
  /** Stores the outcome of the claimed request until `expiresAt`. */
  complete(key: string, response: StoredResponse, expiresAt: number): Promise<void>;
  /**
   * Ties the claim of `key` to the correlation id its command's events carry (the request id), so that the
   * store can record, durably with the first of those events, that the command ran (`outcome_lost` after a
   * crash), when the command runs in this process. Optional: the distributed store asks the event store
   * instead (`claim`'s correlation id); a command run in another process is recorded there (`hostRun`).
   */
  track?(key: string, correlationId: string, expiresAt: number): void;
  /**
   * In the process that runs a keyed command for a gateway in another process (a service of the split
   * topology): until `done` is called, the events this process appends with `correlationId` record, durably
   * with them, that the claim `run` ran (what `track` does for a command run beside its claim). Refused when
   * the claim is known to have run already or has its outcome (`outcome_lost`: also a late run of a request
   * whose gateway gave up waiting) or another run of it is still running here (`in_flight`): the retry of a
   * request whose gateway died never runs the command a second time, even while the first run is still
   * going. Optional: without it the command runs unguarded.
   */
  hostRun?(run: IdempotentRun, correlationId: string): HostedRun;
  /** Gives up a claim without storing an outcome (a request that never ran, such as one refused for load). */
  release(key: string): Promise<void>;
  /** Deletes expired records; returns how many. */
  purgeExpired(nowMs: number): Promise<number>;
}
