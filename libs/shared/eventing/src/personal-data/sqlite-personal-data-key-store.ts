import { GroupCommit, openSqliteDatabase, SqliteDatabase } from '@cip/shared/runtime';
import type { Statement } from 'better-sqlite3';
import type { PersonalDataKeyStore, SubjectKey } from './personal-data-key-store.port';

interface Row {
  wrapped_key: string | null;
  erased_at: string | null;
}

const toKey = (row: Row): SubjectKey =>
  row.wrapped_key !== null
    ? { status: 'active', wrappedKey: row.wrapped_key }
    : { status: 'erased', erasedAt: row.erased_at ?? '' };

/**
 * The embedded runtime's key store: its own SQLite file (`DATA_DIR/<scope>-keys.sqlite`, 0600 like the
 * others), never the event store's, so that a copy of the log does not carry the keys that open it.
 *
 * `secure_delete` makes SQLite overwrite deleted content with zeros, and an erasure checkpoints and
 * truncates the WAL, so an erased key's bytes are gone from the files (copies made before are the
 * operator's backups of this file, which must be kept apart from the log's and expire).
 *
 * Keys are created through a group commit: every user creation makes a key, and the creations of one turn
 * of the event loop share one transaction (one fsync) instead of each waiting for its own on the thread.
 */
export class SqlitePersonalDataKeyStore implements PersonalDataKeyStore {
  private readonly select: Statement;
  private readonly insert: Statement;
  private readonly tombstone: Statement;
  private readonly dataVersion: Statement;
  private readonly creations: GroupCommit<{ subjectId: string; wrappedKey: string; at: string }, SubjectKey>;

  constructor(private readonly db: SqliteDatabase) {
    db.pragma('secure_delete = ON');
    db.exec(`
      CREATE TABLE IF NOT EXISTS personal_data_keys (
        subject_id  TEXT PRIMARY KEY,
        wrapped_key TEXT,
        created_at  TEXT NOT NULL,
        erased_at   TEXT
      ) WITHOUT ROWID;
    `);
    this.select = db.prepare('SELECT wrapped_key, erased_at FROM personal_data_keys WHERE subject_id = ?');
    this.insert = db.prepare(
      `INSERT INTO personal_data_keys (subject_id, wrapped_key, created_at) VALUES (?, ?, ?)
       ON CONFLICT (subject_id) DO NOTHING`,
    );
    this.tombstone = db.prepare(
      `INSERT INTO personal_data_keys (subject_id, wrapped_key, created_at, erased_at) VALUES (?, NULL, ?, ?)
       ON CONFLICT (subject_id) DO UPDATE SET wrapped_key = NULL,
         erased_at = coalesce(personal_data_keys.erased_at, excluded.erased_at)`,
    );
    this.dataVersion = db.prepare('PRAGMA data_version').pluck();
    this.creations = new GroupCommit((batch) =>
      db
        .transaction(() =>
          batch.map(({ subjectId, wrappedKey, at }) => {
            this.insert.run(subjectId, wrappedKey, at);
            return toKey(this.select.get(subjectId) as Row);
          }),
        )
        .immediate(),
    );
  }

  static open(path: string): SqlitePersonalDataKeyStore {
    return new SqlitePersonalDataKeyStore(openSqliteDatabase(path));
  }

  async get(subjectId: string): Promise<SubjectKey | null> {
    const row = this.select.get(subjectId) as Row | undefined;
    return row ? toKey(row) : null;
  }

  create(subjectId: string, wrappedKey: string, at: string): Promise<SubjectKey> {
    return this.creations.submit({ subjectId, wrappedKey, at });
  }

  async erase(subjectId: string, at: string): Promise<void> {
    this.tombstone.run(subjectId, at, at);
    // The WAL still holds the page with the key until it is checkpointed; TRUNCATE also empties the file.
    // A reader of another process may hold the checkpoint back: the next checkpoint completes it.
    this.db.pragma('wal_checkpoint(TRUNCATE)');
  }

  /**
   * SQLite's `data_version`: it changes when another connection (another process) commits to the file, not
   * for this connection's own creations and erasures, which the vault sees itself.
   */
  changeMark(): number {
    return this.dataVersion.get() as number;
  }

  async close(): Promise<void> {
    // Creations already queued reach the disk before the file closes.
    if (this.db.open && this.creations.pending) this.creations.flush();
    if (this.db.open) this.db.close();
  }
}
