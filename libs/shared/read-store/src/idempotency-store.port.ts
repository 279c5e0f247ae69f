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

export type ClaimResult = { claimed: true } | { claimed: false; record: IdempotencyRecord };

export interface IdempotencyStore {
  /** Atomically claims `key` unless a live record exists (completed and unexpired, or in flight within its lease). */
  claim(key: string, nowMs: number, leaseMs: number): Promise<ClaimResult>;
  /** Stores the outcome of the claimed request until `expiresAt`. */
  complete(key: string, response: StoredResponse, expiresAt: number): Promise<void>;
  /**
   * Ties the claim of `key` to the correlation id its command's events carry (the request id), so that the
   * store can record, durably with the first of those events, that the command ran (`outcome_lost` after a
   * crash). Optional: a store whose outcomes cannot be written with the events (the distributed runtime, the
   * gateway of the split topology) leaves that window open (docs/STACK-NOTES.md, "Keyed requests after a kill -9").
   */
  track?(key: string, correlationId: string, expiresAt: number): void;
  /** Gives up a claim without storing an outcome (a request that never ran, such as one refused for load). */
  release(key: string): Promise<void>;
  /** Deletes expired records; returns how many. */
  purgeExpired(nowMs: number): Promise<number>;
}
