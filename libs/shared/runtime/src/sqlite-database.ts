import Database from 'better-sqlite3';
import { chmodSync, closeSync, mkdirSync, openSync } from 'node:fs';
import { dirname } from 'node:path';

export type SqliteDatabase = Database.Database;

/**
 * The stores hold the whole log, keys' hashes and sealed secrets: readable by the platform's user only. A
 * directory the platform creates is 0700; the database file is 0600, and SQLite gives its WAL and shared
 * memory files the mode of the database file. A directory that already exists keeps its mode (it may be
 * a mount point or shared), only the files are tightened.
 */
function createPrivately(path: string): void {
  mkdirSync(dirname(path), { recursive: true, mode: 0o700 });
  closeSync(openSync(path, 'a', 0o600));
  chmodSync(path, 0o600);
}

const WAL_SWITCH_DEADLINE_MS = 10_000;
const pause = new Int32Array(new SharedArrayBuffer(4));

/**
 * `journal_mode = WAL` on a file another process is opening at the same moment can answer SQLITE_BUSY at
 * once, without calling the busy handler (the mode change needs an exclusive lock; seen with four processes
 * opening a fresh DATA_DIR together). It is retried here, pausing the thread a few milliseconds between tries:
 * this runs once per file at start, before the event loop has anything else to do.
 */
function switchToWal(db: SqliteDatabase): void {
  const deadline = Date.now() + WAL_SWITCH_DEADLINE_MS;
  for (let attempt = 1; ; attempt++) {
    try {
      db.pragma('journal_mode = WAL');
      return;
    } catch (error) {
      const code = (error as { code?: string }).code;
      if ((code !== 'SQLITE_BUSY' && code !== 'SQLITE_LOCKED') || Date.now() > deadline) throw error;
      Atomics.wait(pause, 0, 0, Math.min(50, 5 * attempt));
    }
  }
}

/**
 * Opens one SQLite file of the embedded runtime. WAL lets readers run beside the single writer;
 * `synchronous=FULL` makes every commit durable (fsync of the WAL) before it is acknowledged, which is
 * what lets an acknowledged append survive kill -9. Several processes (the platform and the CLI, or the
 * services of the split topology) may open the same file; `busy_timeout` makes a writer wait for the other's short transaction instead of failing.
 *
 * `synchronous=NORMAL` is for a second connection that writes only derived data (read models, consumer
 * offsets): its commits skip the fsync, and since the WAL is one append-only file, the next FULL commit of
 * the event store makes them durable too. A crash can lose only a suffix of them, which the consumers
 * then recompute from the log (their writes are idempotent).
 */
export function openSqliteDatabase(
  path: string,
  options: { synchronous?: 'FULL' | 'NORMAL' } = {},
): SqliteDatabase {
  if (path !== ':memory:') createPrivately(path);
  const db = new Database(path);
  // First: the processes of the split topology open a fresh file at once, and switching it to WAL (like
  // creating its tables) takes a lock another of them may hold for a moment.
  db.pragma('busy_timeout = 5000');
  switchToWal(db);
  db.pragma(`synchronous = ${options.synchronous ?? 'FULL'}`);
  db.pragma('foreign_keys = ON');
  // Deleted and overwritten content is zeroed rather than left in free space: an erasure (a read model
  // document rewritten, a personal-data key deleted) must not survive in the file's unused bytes.
  db.pragma('secure_delete = ON');
  db.pragma('cache_size = -32000');
  // Checkpoints are run by a SqliteCheckpointer off the event loop (see there).
  db.pragma('wal_autocheckpoint = 0');
  return db;
}
