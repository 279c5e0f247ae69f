import { GroupCommit, openSqliteDatabase, SqliteDatabase } from '@cip/shared/runtime';
import type { Statement } from 'better-sqlite3';
import { closeSync, fdatasync, openSync } from 'node:fs';
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
 * of the event loop share one transaction. Its fsync runs off the event loop's thread: the transaction
 * commits without syncing (`synchronous=NORMAL` for it alone), then the WAL file is fdatasync'ed on libuv's
 * thread pool, and `create` resolves only after that, which is what `synchronous=FULL` does at commit in WAL
 * mode (sync the WAL), without blocking the thread for it (about 10% of it under user creations). Until the
 * sync is done a lookup of the key waits for it, so no event is sealed with a key that is not yet durable.
 */
export class SqlitePersonalDataKeyStore implements PersonalDataKeyStore {
  private readonly select: Statement;
  private readonly insert: Statement;
  private readonly tombstone: Statement;
  private readonly dataVersion: Statement;
  private readonly creations: GroupCommit<
    { subjectId: string; wrappedKey: string; at: string },
    { key: SubjectKey; synced: Promise<void> }
  >;
  /** Subjects whose key is committed but not yet synced: the sync a lookup must wait for. */
  private readonly syncing = new Map<string, Promise<void>>();
  /** The WAL file, opened on the first sync and kept (see `syncWal`). */
  private walFd: number | undefined;

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
    this.creations = new GroupCommit((batch) => {
      db.pragma('synchronous = NORMAL');
      let keys: SubjectKey[];
      try {
        keys = db
          .transaction(() =>
            batch.map(({ subjectId, wrappedKey, at }) => {
              this.insert.run(subjectId, wrappedKey, at);
              return toKey(this.select.get(subjectId) as Row);
            }),
          )
          .immediate();
      } finally {
        db.pragma('synchronous = FULL');
      }
      const synced = this.syncWal();
      for (const { subjectId } of batch) this.syncing.set(subjectId, synced);
      const done = () => {
        for (const { subjectId } of batch) {
          if (this.syncing.get(subjectId) === synced) this.syncing.delete(subjectId);
        }
      };
      synced.then(done, done);
      return keys.map((key) => ({ key, synced }));
    });
  }

  /**
   * fdatasync of the WAL, where the commit's frames are. The fd is kept: while this connection is open
   * SQLite never deletes or replaces the WAL file (a checkpoint truncates it in place), and fsync applies to
   * the file whichever descriptor names it.
   */
  private syncWal(): Promise<void> {
    if (this.db.memory) return Promise.resolve();
    this.walFd ??= openSync(`${this.db.name}-wal`, 'r');
    const fd = this.walFd;
    return new Promise((resolve, reject) => fdatasync(fd, (error) => (error ? reject(error) : resolve())));
  }

  static open(path: string): SqlitePersonalDataKeyStore {
    return new SqlitePersonalDataKeyStore(openSqliteDatabase(path));
  }

  async get(subjectId: string): Promise<SubjectKey | null> {
    const syncing = this.syncing.get(subjectId);
    if (syncing) await syncing;
    const row = this.select.get(subjectId) as Row | undefined;
    return row ? toKey(row) : null;
  }

  async create(subjectId: string, wrappedKey: string, at: string): Promise<SubjectKey> {
    const { key, synced } = await this.creations.submit({ subjectId, wrappedKey, at });
    await synced;
    return key;
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
    await Promise.allSettled(this.syncing.values());
    if (this.walFd !== undefined) closeSync(this.walFd);
    this.walFd = undefined;
    if (this.db.open) this.db.close();
  }
}
