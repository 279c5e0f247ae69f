import { migrate, type Migration } from '@cip/shared/runtime';
import type { Pool } from 'pg';
import type { PersonalDataKeyStore, SubjectKey } from './personal-data-key-store.port';

/** The key store's schema: one row per subject; an erased subject keeps its row with no key (a tombstone). */
const MIGRATIONS: readonly Migration[] = [
  {
    version: 1,
    description: 'personal_data_keys: one wrapped data key (or tombstone) per subject',
    sql: `
      CREATE TABLE personal_data_keys (
        subject_id  text NOT NULL PRIMARY KEY,
        wrapped_key text,
        created_at  text NOT NULL,
        erased_at   text,
        CHECK ((wrapped_key IS NULL) = (erased_at IS NOT NULL))
      );
    `,
  },
];

interface Row {
  wrapped_key: string | null;
  erased_at: string | null;
}

const toKey = (row: Row): SubjectKey =>
  row.wrapped_key !== null
    ? { status: 'active', wrappedKey: row.wrapped_key }
    : { status: 'erased', erasedAt: row.erased_at ?? '' };

export interface PostgresPersonalDataKeyStoreOptions {
  /** The name its schema steps are recorded under in `schema_migrations` (default `personal-data-keys`). */
  component?: string;
}

/**
 * The personal-data key store on PostgreSQL: one row per subject. Keep its pool on a database (or at least
 * a schema and role) apart from the event log's, so that a copy or backup of the log does not carry the keys
 * that open it.
 *
 * Creation is one INSERT ... ON CONFLICT DO NOTHING: the primary key makes one of concurrent creations
 * insert; the others wait for its commit and read its key. It resolves once committed, and with
 * `synchronous_commit` on (PostgreSQL's default; keep it on for this database) a commit is flushed to the
 * WAL, so events sealed with the key may be appended right after.
 *
 * Erasure sets the key to null. PostgreSQL never overwrites a row in place: the old version stays in the
 * table's pages until vacuum prunes it and its space is reused, and in the WAL (and any WAL archive or base
 * backup) until those are recycled; the deployment's WAL and backup retention bound how long its bytes
 * last, as MongoDB's oplog does for that adapter (deploy/README.md).
 *
 * No `changeMark`: another process's erasure cannot be told synchronously here, so the vault looks keys up
 * on every call.
 */
export class PostgresPersonalDataKeyStore implements PersonalDataKeyStore {
  private constructor(private readonly pool: Pool) {}

  static async open(
    pool: Pool,
    options: PostgresPersonalDataKeyStoreOptions = {},
  ): Promise<PostgresPersonalDataKeyStore> {
    await migrate(pool, options.component ?? 'personal-data-keys', MIGRATIONS);
    return new PostgresPersonalDataKeyStore(pool);
  }

  async get(subjectId: string): Promise<SubjectKey | null> {
    const { rows } = await this.pool.query<Row>(
      'SELECT wrapped_key, erased_at FROM personal_data_keys WHERE subject_id = $1',
      [subjectId],
    );
    return rows[0] ? toKey(rows[0]) : null;
  }

  async create(subjectId: string, wrappedKey: string, at: string): Promise<SubjectKey> {
    const inserted = await this.pool.query<Row>(
      `INSERT INTO personal_data_keys (subject_id, wrapped_key, created_at) VALUES ($1, $2, $3)
       ON CONFLICT (subject_id) DO NOTHING
       RETURNING wrapped_key, erased_at`,
      [subjectId, wrappedKey, at],
    );
    if (inserted.rows[0]) return toKey(inserted.rows[0]);
    // Another creation (or an erasure) committed first; a new statement sees it.
    const stored = await this.get(subjectId);
    if (!stored) throw new Error(`The key of ${subjectId} was not stored`);
    return stored;
  }

  async erase(subjectId: string, at: string): Promise<void> {
    await this.pool.query(
      `INSERT INTO personal_data_keys AS k (subject_id, wrapped_key, created_at, erased_at)
       VALUES ($1, NULL, $2, $2)
       ON CONFLICT (subject_id) DO UPDATE SET wrapped_key = NULL, erased_at = coalesce(k.erased_at, excluded.erased_at)`,
      [subjectId, at],
    );
  }

  async close(): Promise<void> {
    // The pool belongs to the infrastructure that opened it.
  }
}
