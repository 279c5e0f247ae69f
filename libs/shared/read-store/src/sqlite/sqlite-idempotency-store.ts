import { GroupCommit, type SqliteDatabase } from '@cip/shared/runtime';
import type { Statement } from 'better-sqlite3';
import type { IdempotentRun } from '@cip/shared/contracts';
import type { ClaimResult, HostedRun, IdempotencyStore, StoredResponse } from '../idempotency-store.port';

interface Row {
  expires_at: number;
  status: number;
  headers: string;
  body: string;
}

interface Outcome {
  key: string;
  response: StoredResponse;
  expiresAt: number;
}

export interface SqliteIdempotencyStoreOptions {
  /**
   * A group commit on the same connection to ride on (the event store's `commitAlongside`): each outcome's
   * statement then goes into the event store's next transaction, sharing its fsync with the appends of
   * that turn instead of paying one of its own. Without it the store group-commits its outcomes itself.
   */
  commitAlongside?(write: () => void): Promise<void>;
  /**
   * The event store's `witnessAppends` on the same connection: with it, a tracked claim (`track`), or a run
   * hosted for the gateway of another process (`hostRun`), is recorded as run inside the transaction of its
   * command's first events, so a retry after a kill -9 between those events and the outcome finds
   * `outcome_lost` instead of running the command a second time.
   */
  witnessAppends?(witness: (correlationIds: ReadonlySet<string>) => void): void;
}

/** The status of a row that records a command run whose outcome was never stored (see `track`). */
const RAN_WITHOUT_OUTCOME = 0;

/**
 * Idempotency records of the embedded runtime, in the environment's SQLite file.
 *
 * Claims are held in memory (one process serves the API for its DATA_DIR: the platform, or the gateway of
 * the split topology, the only process of it that takes idempotency keys): a claim
 * is a lookup of the stored outcome plus an entry in the in-flight table, with no write and no fsync, and
 * concurrent claims of a key are settled by that table (one wins, the others see it in flight). Outcomes
 * are written through a group commit on the fsynced connection (the event store's, when given), so the
 * outcomes of many requests cost one transaction, and `complete` resolves once its outcome is durable (the response is only sent then: an
 * acknowledged outcome survives a kill -9). A claim dies with its process, as a durable claim would once
 * its lease passed: a request that was never acknowledged can be run again by its retry. Its events may be
 * durable already (the outcome rides the group commit after theirs): such a retry runs against them, a user
 * creation then answering 409 naming its own user (docs/STACK-NOTES.md, "Group commits a user creation waits for").
 * Unless the claim is tracked (`track`, with `witnessAppends`): the claim's row is then written in the
 * transaction of its command's first events, with no outcome (status 0), and a retry finding that row
 * without its claim in flight is answered `outcome_lost`: the command ran, its answer is gone, it never runs
 * again (docs/STACK-NOTES.md, "Keyed requests after a kill -9"). In the split topology the command runs in
 * a service process on the same file: that process's store hosts the claim's run (`hostRun`) and writes the
 * row with its events, where the gateway's `claim` reads it.
 *
 * Outcomes are rows of a rowid table, so each lands at its end, and the identity is in a small unique index:
 * with the identity as the key of a WITHOUT ROWID table (each ~0.5 KiB row at a random place, its leaf split
 * every few inserts) an outcome wrote ~3.1 WAL pages into the event store's commit, against ~1.5 this way
 * (measured: 20,000 outcomes in batches of 20), and those pages are the fresh-key path's cost.
 * The table of earlier versions (`idempotency_keys`) is moved into it on open: its outcomes are kept, and its
 * in-flight rows are honoured from the in-flight table until their lease passes.
 */
export class SqliteIdempotencyStore implements IdempotencyStore {
  /** Claims of this process not yet completed: key → end of the lease (ms). */
  private readonly inFlight = new Map<string, number>();
  /** Tracked claims in flight: correlation id → the claims its events run for (a caller may reuse a request id). */
  private readonly tracked = new Map<string, { key: string; expiresAt: number; run: string }[]>();
  /** Tracked claims in flight: key → its correlation id. */
  private readonly correlationOf = new Map<string, string>();
  /** Runs of claims of another process's gateway running here (`hostRun`): key → its run, and its callers. */
  private readonly hosted = new Map<string, { run: string; callers: number }>();
  private readonly witnessing: boolean;
  private readonly store: (outcome: Outcome) => Promise<void>;
  private readonly select: Statement;
  private readonly completeStatement: Statement;
  private readonly purgeStatement: Statement;

  constructor(
    private readonly db: SqliteDatabase,
    options: SqliteIdempotencyStoreOptions = {},
  ) {
    db.exec(`
      CREATE TABLE IF NOT EXISTS idempotency_outcomes (
        id         INTEGER PRIMARY KEY,
        key        TEXT NOT NULL UNIQUE,
        expires_at INTEGER NOT NULL,
        status     INTEGER NOT NULL,
        headers    TEXT NOT NULL,
        body       TEXT NOT NULL
      );
      CREATE INDEX IF NOT EXISTS idempotency_outcomes_expiry ON idempotency_outcomes (expires_at);
    `);
    this.migrateEarlierTable();
    this.select = db.prepare(
      'SELECT expires_at, status, headers, body FROM idempotency_outcomes WHERE key = ?',
    );
    this.completeStatement = db.prepare(
      `INSERT INTO idempotency_outcomes (key, expires_at, status, headers, body) VALUES (?, ?, ?, ?, ?)
       ON CONFLICT (key) DO UPDATE SET expires_at = excluded.expires_at, status = excluded.status,
         headers = excluded.headers, body = excluded.body`,
    );
    const write = ({ key, response, expiresAt }: Outcome) =>
      this.completeStatement.run(
        key,
        expiresAt,
        response.status,
        JSON.stringify(response.headers),
        response.body,
      );
    const commitAlongside = options.commitAlongside;
    if (commitAlongside) {
      this.store = (outcome) => commitAlongside(() => write(outcome));
    } else {
      const outcomes = new GroupCommit<Outcome, void>((batch) => {
        db.transaction(() => batch.forEach(write))();
        return batch.map(() => undefined);
      });
      this.store = (outcome) => outcomes.submit(outcome);
    }
    this.purgeStatement = db.prepare(`DELETE FROM idempotency_outcomes WHERE expires_at <= ?`);
    // Never replaces an outcome: one stored already (a later append of the same request) stays. The body of
    // a row with no outcome names the run that wrote it (`hostRun`: another process may host the same run).
    const ran = db.prepare(
      `INSERT INTO idempotency_outcomes (key, expires_at, status, headers, body)
       VALUES (?, ?, ${RAN_WITHOUT_OUTCOME}, '{}', ?) ON CONFLICT (key) DO NOTHING`,
    );
    this.witnessing = options.witnessAppends !== undefined;
    options.witnessAppends?.((correlationIds) => {
      if (this.tracked.size === 0) return;
      for (const id of correlationIds) {
        for (const { key, expiresAt, run } of this.tracked.get(id) ?? []) ran.run(key, expiresAt, run);
      }
    });
  }

  /** Moves the rows of the table of earlier versions (keyed by the identity, with in-flight rows) here. */
  private migrateEarlierTable(): void {
    const hasEarlier = () =>
      this.db.prepare(`SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = 'idempotency_keys'`).get();
    if (!hasEarlier()) return;
    // Looked at again under the write lock: another process opening the file at once may have moved it.
    const inFlight = this.db
      .transaction(() => {
        if (!hasEarlier()) return [];
        const rows = this.db
          .prepare(`SELECT key, lease_until FROM idempotency_keys WHERE state = 'in_flight'`)
          .all() as { key: string; lease_until: number | null }[];
        this.db.exec(`
          INSERT INTO idempotency_outcomes (key, expires_at, status, headers, body)
            SELECT key, coalesce(expires_at, 0), coalesce(status, 500), coalesce(headers, '{}'), coalesce(body, '')
            FROM idempotency_keys WHERE state = 'completed'
            ON CONFLICT (key) DO NOTHING;
          DROP TABLE idempotency_keys;
        `);
        return rows;
      })
      .immediate();
    for (const row of inFlight) this.inFlight.set(row.key, row.lease_until ?? 0);
  }

  async claim(key: string, nowMs: number, leaseMs: number): Promise<ClaimResult> {
    // Synchronous from the lookup to the in-flight entry: no other claim of this process can interleave.
    const row = this.select.get(key) as Row | undefined;
    if (row && row.expires_at > nowMs && row.status !== RAN_WITHOUT_OUTCOME) {
      return {
        claimed: false,
        record: {
          state: 'completed',
          expiresAt: row.expires_at,
          response: { status: row.status, headers: JSON.parse(row.headers), body: row.body },
        },
      };
    }
    const leaseUntil = this.inFlight.get(key) ?? 0;
    if (leaseUntil > nowMs) return { claimed: false, record: { state: 'in_flight', leaseUntil } };
    // Ran and not in flight: its process died between the command's events and its outcome.
    if (row && row.expires_at > nowMs) return { claimed: false, record: { state: 'outcome_lost' } };
    this.inFlight.set(key, nowMs + leaseMs);
    return { claimed: true };
  }

  async complete(key: string, response: StoredResponse, expiresAt: number): Promise<void> {
    // The claim stays in flight until the outcome is durable: a repeat meanwhile is told to retry.
    await this.store({ key, response, expiresAt });
    this.inFlight.delete(key);
    this.untrack(key);
  }

  track(key: string, correlationId: string, expiresAt: number): void {
    if (!this.witnessing || !this.inFlight.has(key)) return;
    this.witness(key, correlationId, expiresAt, '');
  }

  /**
   * The split topology's services share the gateway's file: the run's mark is written here, in the
   * transaction of this process's events, where the gateway reads it (`claim`). Synchronous from the lookup to
   * the entry, so of two runs of one claim here, exactly one is hosted.
   */
  hostRun(run: IdempotentRun, correlationId: string): HostedRun {
    if (!this.witnessing) return { done: () => undefined };
    const running = this.hosted.get(run.key);
    // A retry sent while the run it retries is still going here (its gateway died): that one may still append.
    if (running && running.run !== run.run) return { refused: 'in_flight' };
    const hosted = running ?? { run: run.run, callers: 0 };
    if (!running) {
      // The run it retries appended, here or in another process (not this run: a service it called first);
      // or the key has its outcome already: this run arrives late (its gateway gave up waiting, and a retry
      // ran and answered), it must not run a second time.
      const row = this.select.get(run.key) as Row | undefined;
      if (
        row &&
        row.expires_at > run.claimedAt &&
        (row.status !== RAN_WITHOUT_OUTCOME || row.body !== run.run)
      ) {
        return { refused: 'outcome_lost' };
      }
      this.hosted.set(run.key, hosted);
      this.witness(run.key, correlationId, run.expiresAt, run.run);
    }
    hosted.callers++;
    let done = false;
    return {
      done: () => {
        if (done) return;
        done = true;
        if (--hosted.callers > 0) return;
        this.hosted.delete(run.key);
        this.untrack(run.key);
      },
    };
  }

  /** From now on, the events appended with `correlationId` record that `key`'s claim ran (see the witness). */
  private witness(key: string, correlationId: string, expiresAt: number, run: string): void {
    this.untrack(key);
    this.correlationOf.set(key, correlationId);
    const claims = this.tracked.get(correlationId);
    if (claims) claims.push({ key, expiresAt, run });
    else this.tracked.set(correlationId, [{ key, expiresAt, run }]);
  }

  private untrack(key: string): void {
    const correlationId = this.correlationOf.get(key);
    if (correlationId === undefined) return;
    this.correlationOf.delete(key);
    const claims = this.tracked.get(correlationId)?.filter((claim) => claim.key !== key) ?? [];
    if (claims.length) this.tracked.set(correlationId, claims);
    else this.tracked.delete(correlationId);
  }

  async release(key: string): Promise<void> {
    this.inFlight.delete(key);
    this.untrack(key);
  }

  async purgeExpired(nowMs: number): Promise<number> {
    let purged = 0;
    for (const [key, leaseUntil] of this.inFlight) {
      if (leaseUntil <= nowMs) {
        this.inFlight.delete(key);
        this.untrack(key);
        purged++;
      }
    }
    return purged + this.purgeStatement.run(nowMs).changes;
  }
}
