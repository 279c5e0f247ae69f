import { runPostgresMigrations, type PostgresMigration } from '@cip/shared/runtime';
import type { Pool } from 'pg';
import type { PersonalDataKeyStore, SubjectKey } from './personal-data-key-store.port';

interface Row {
  wrapped_key: string | null;
  erased_at: string | null;
}

const toKey = (row: Row): SubjectKey =>
  row.wrapped_key !== null
    ? { status: 'active', wrappedKey: row.wrapped_key }
    : { status: 'erased', erasedAt: row.erased_at ?? '' };

/** Versioned like the event store's (see PostgresMigration: expand, then contract in a later release). */
export const PERSONAL_DATA_KEY_MIGRATIONS: readonly PostgresMigration[] = [
  {
    version: 1,
    name: 'the data key of each subject',
    sql: `
      CREATE TABLE cip_personal_data_keys (
        subject_id  text PRIMARY KEY,
        -- NULL once erased: the row stays as the tombstone.
        wrapped_key text,
        created_at  text NOT NULL,
        erased_at   text
      )`,
  },
];

/**
 * The key store on PostgreSQL, for a topology whose event log is in PostgreSQL (PostgresEventStore). Give
 * it a pool on another database than the log's (the same server will do): a dump of the log must not carry
 * the keys that open it, and the two are backed up and retained apart.
 *
 * Erasure sets the key to NULL and keeps the row as the tombstone. PostgreSQL has no secure delete: the old
 * row version stays in the table's pages until vacuum frees it and a later write reuses the space, and in
 * the WAL, its archive and replicas until they roll over; as with MongoDB, the deployment's WAL and backup
 * retention bound how long an erased key's bytes survive (deploy/README.md). No `changeMark`: the vault looks
 * keys up on each call (a primary-key read).
 */
export class PostgresPersonalDataKeyStore implements PersonalDataKeyStore {
  /** Brings the table to this release's version; `pool` stays its owner's (closed by whoever opened it). */
  static async open(pool: Pool): Promise<PostgresPersonalDataKeyStore> {
    await runPostgresMigrations(pool, 'personal-data-keys', PERSONAL_DATA_KEY_MIGRATIONS);
    return new PostgresPersonalDataKeyStore(pool);
  }

  private constructor(private readonly pool: Pool) {}

  async get(subjectId: string): Promise<SubjectKey | null> {
    const { rows } = await this.pool.query<Row>(
      'SELECT wrapped_key, erased_at FROM cip_personal_data_keys WHERE subject_id = $1',
      [subjectId],
    );
    return rows.length ? toKey(rows[0]) : null;
  }

  async create(subjectId: string, wrappedKey: string, at: string): Promise<SubjectKey> {
    // Of concurrent creations the first insert wins; the others insert nothing and read the winner (its
    // commit is visible once their conflicting insert returns). Durable at commit (synchronous_commit on).
    const { rows } = await this.pool.query<Row>(
      `WITH inserted AS (
         INSERT INTO cip_personal_data_keys (subject_id, wrapped_key, created_at) VALUES ($1, $2, $3)
         ON CONFLICT (subject_id) DO NOTHING
         RETURNING wrapped_key, erased_at)
       SELECT wrapped_key, erased_at FROM inserted
       UNION ALL
       SELECT wrapped_key, erased_at FROM cip_personal_data_keys
        WHERE subject_id = $1 AND NOT EXISTS (SELECT 1 FROM inserted)`,
      [subjectId, wrappedKey, at],
    );
    if (rows.length) return toKey(rows[0]);
    // The statement's snapshot predates a concurrent winner's commit: read it now.
    const stored = await this.get(subjectId);
    if (!stored) throw new Error(`The key of ${subjectId} was not stored`);
    return stored;
  }

  async erase(subjectId: string, at: string): Promise<void> {
    await this.pool.query(
      `INSERT INTO cip_personal_data_keys (subject_id, wrapped_key, created_at, erased_at) VALUES ($1, NULL, $2, $2)
       ON CONFLICT (subject_id) DO UPDATE
         SET wrapped_key = NULL, erased_at = COALESCE(cip_personal_data_keys.erased_at, EXCLUDED.erased_at)`,
      [subjectId, at],
    );
  }

  async close(): Promise<void> {
    // The pool belongs to whoever opened it.
  }
}
