import Database from 'better-sqlite3';
import { Worker } from 'node:worker_threads';
import type { SqliteDatabase } from './sqlite-database';

export interface SqliteCheckpointerOptions {
  /**
   * A WAL past this size is started again from its beginning as soon as the checkpoints have caught up
   * (see SqliteCheckpointer); the file keeps its size and is written over. Default 1 GiB
   * (`SQLITE_WAL_LIMIT_MB`'s default).
   */
  walLimitBytes?: number;
  /** Frames left to copy below which the main thread finishes a bounded WAL's checkpoint. Default 64. */
  finishFrames?: number;
  /** The bytes of frames in a file's WAL, at most once per interval per file (0 for each at the start). */
  onWalBytes?(path: string, bytes: number): void;
}

/**
 * The salt of a WAL as its wal-index (`-shm`) holds it: SQLite draws a new one each time it starts the log
 * again (`walRestartHdr`), so a salt that changed tells that it did. Read with `read(2)`, coherent with
 * SQLite's shared mapping of the same file; a read racing a commit can only see a changed salt too early.
 */
function walSalt(path: string): string {
  // Required here: this function's source also runs in the worker, which has no module scope of ours.
  const fs = require('node:fs') as typeof import('node:fs');
  const header = Buffer.alloc(8);
  const fd = fs.openSync(`${path}-shm`, 'r');
  try {
    fs.readSync(fd, header, 0, 8, 32);
  } finally {
    fs.closeSync(fd);
  }
  return header.toString('hex');
}

const WORKER_SOURCE = `
const { workerData, parentPort } = require('node:worker_threads');
const { closeSync, existsSync, fdatasyncSync, openSync } = require('node:fs');
const { dirname } = require('node:path');
const Database = require(workerData.driver);
const databases = [];
// Files are opened once they exist: a store the runtime creates after this thread started (a card vault is
// created by its context's module, after the event stores) is looked for again at each tick. A file that
// cannot be opened (its directory removed, as when a store is closed and its data directory deleted at once)
// is reported with its path, never thrown: an error thrown here would reach the process that started the
// thread as an uncaught exception.
//
// A file is kept only once it is in WAL mode. A file found while its store is still setting it up (empty, or
// in rollback mode) is closed and looked at again at the next tick: a connection learns that a file is in WAL
// mode only when it reads it, and a checkpoint does not read it, so a connection opened before the switch
// would run checkpoints that do nothing for good, and the store's WAL would grow without bound.
const pending = new Set(workerData.paths);
const openThoseThatExist = () => {
  for (const path of [...pending]) {
    if (!existsSync(path) && existsSync(dirname(path))) continue;
    pending.delete(path);
    try {
      const db = new Database(path, { fileMustExist: true });
      db.pragma('busy_timeout = 5000');
      db.pragma('schema_version');
      if (db.pragma('journal_mode', { simple: true }) !== 'wal') {
        db.close();
        pending.add(path);
        continue;
      }
      databases.push(db);
    } catch (error) {
      parentPort.postMessage({ error: path + ': ' + String(error) });
    }
  }
};
// A WAL past the limit (see SqliteCheckpointer): passes follow each other until what is left to copy is small,
// each followed by an fdatasync of the database file (the pages copied reach the disk a few at a time, not
// all at once under the commits of the thread that finishes); then the main thread is asked to copy the rest.
// A finish after which the log did not start again (a process other than the one finishing kept writing, or
// read an older snapshot) is tried again after a pause that doubles, up to 8 s.
const QUIET_AFTER_FINISH_MS = 50;
const walSalt = ${walSalt.toString()};
/** One passive checkpoint of db; true when another should follow at once (see bound). */
const passAgain = (db) => {
  if (db.bound?.quietUntil > Date.now()) return false;
  try {
    return bound(db, db.pragma('wal_checkpoint(PASSIVE)')[0]);
  } catch (error) {
    parentPort.postMessage({ error: db.name + ': ' + String(error) });
    return false;
  }
};
const bound = (db, row) => {
  // Another process's checkpoint was running: nothing learnt this time.
  if (row.log < 0) return false;
  const state = (db.bound ??= {
    frameBytes: db.pragma('page_size', { simple: true }) + 24,
    backoffMs: 0,
    until: 0,
    reportedAt: 0,
  });
  if (Date.now() - state.reportedAt >= workerData.intervalMs) {
    state.reportedAt = Date.now();
    parentPort.postMessage({ wal: db.name, bytes: row.log * state.frameBytes });
  }
  if (row.log * state.frameBytes <= workerData.walLimitBytes) {
    state.backoffMs = 0;
    state.finishedAt = undefined;
    return false;
  }
  if (state.finishedAt !== undefined) {
    if (walSalt(db.name) === state.saltAtFinish) {
      // Nothing written since the main thread finished: the next commit starts the log again.
      if (row.log === state.finishedAt) return false;
      // Written since, and the log did not start again.
      state.backoffMs = Math.min(8000, Math.max(1000, state.backoffMs * 2));
      state.until = Date.now() + state.backoffMs;
    } else {
      // It started again (a new salt), and has grown past the limit since: a small limit, a fast writer.
      state.backoffMs = 0;
    }
    state.finishedAt = undefined;
  }
  state.fd ??= openSync(db.name, 'r');
  fdatasyncSync(state.fd);
  if (stopping || row.busy !== 0 || Date.now() < state.until) return false;
  if (row.log - row.checkpointed > workerData.finishFrames) return true;
  awaiting.add(db.name);
  parentPort.postMessage({ finish: db.name });
  return false;
};
const awaiting = new Set();
let soon = null;
let stopping = false;
const checkpoint = () => {
  openThoseThatExist();
  let again = false;
  for (const db of databases) if (!awaiting.has(db.name)) again = passAgain(db) || again;
  if (again && !soon) soon = setTimeout(() => { soon = null; checkpoint(); }, 1);
};
const timer = setInterval(checkpoint, workerData.intervalMs);
parentPort.on('message', (message) => {
  if (message.finished !== undefined) {
    awaiting.delete(message.finished);
    const db = databases.find((d) => d.name === message.finished);
    // The log as the main thread left it, wholly copied (unless its checkpoint could not run). No pass for a
    // moment: a checkpoint running when the next commit begins takes the read-mark locks that commit needs
    // to start the log again.
    if (db?.bound && message.log !== undefined) {
      db.bound.finishedAt = message.log;
      db.bound.saltAtFinish = message.salt;
      db.bound.quietUntil = Date.now() + QUIET_AFTER_FINISH_MS;
    }
    return;
  }
  stopping = true;
  clearInterval(timer);
  if (soon) clearTimeout(soon);
  awaiting.clear();
  checkpoint();
  for (const db of databases) {
    if (db.bound?.fd !== undefined) closeSync(db.bound.fd);
    db.close();
  }
  parentPort.close();
});
`;

/**
 * Moves SQLite's WAL checkpoints off the request path. With automatic checkpoints, the commit that pushes
 * the WAL past its threshold copies pages into the database file and fsyncs it while the event loop waits;
 * here a worker thread with its own connections runs passive checkpoints on a timer instead (they never
 * block writers), and the connections of the main thread have `wal_autocheckpoint = 0`.
 *
 * SQLite starts a WAL again from its beginning only when a transaction begins to write with every frame
 * already copied into the database file. Checkpoints racing the writers never leave that state under a
 * steady load, so the WAL grew for as long as the writes went on (2.1 GiB in 30 s of `POST /v1/users` at
 * 50 connections, ~200 MiB in 35 s at 500 requests/s: docs/STACK-NOTES.md, "Bounding the WAL"). Past
 * `walLimitBytes`, the worker catches up pass after pass, then has this thread copy the few frames left
 * (`finish`): nothing of this process can commit while this thread copies them, so the next commit of any
 * of its connections finds the WAL wholly copied and starts it again.
 */
export class SqliteCheckpointer {
  private readonly worker: Worker;
  private readonly exited: Promise<void>;
  /** This thread's connections for finishing checkpoints, by path (opened at a file's first finish). */
  private readonly finishing = new Map<string, SqliteDatabase>();

  constructor(
    paths: string[],
    intervalMs = 1000,
    private readonly onError?: (message: string) => void,
    options: SqliteCheckpointerOptions = {},
  ) {
    this.worker = new Worker(WORKER_SOURCE, {
      eval: true,
      workerData: {
        paths,
        intervalMs,
        driver: require.resolve('better-sqlite3'),
        walLimitBytes: options.walLimitBytes ?? 1024 * 1024 * 1024,
        finishFrames: options.finishFrames ?? 64,
      },
    });
    for (const path of paths) options.onWalBytes?.(path, 0);
    this.worker.on(
      'message',
      (message: { error?: string; finish?: string; wal?: string; bytes?: number }) => {
        if (message.error !== undefined) onError?.(message.error);
        if (message.finish !== undefined) this.finish(message.finish);
        if (message.wal !== undefined) options.onWalBytes?.(message.wal, message.bytes ?? 0);
      },
    );
    // Anything the thread throws all the same is reported like its checkpoints' errors, not rethrown here.
    this.worker.on('error', (error) => onError?.(String(error)));
    this.worker.unref();
    this.exited = new Promise((resolve) => this.worker.once('exit', () => resolve()));
  }

  /** The last frames of a WAL past its limit, copied on this thread (see the class). */
  private finish(path: string): void {
    let log: number | undefined;
    let salt: string | undefined;
    try {
      let db = this.finishing.get(path);
      if (!db) {
        db = new Database(path, { fileMustExist: true });
        // A checkpoint another process runs at the moment: this finish is skipped, the worker asks again.
        db.pragma('busy_timeout = 0');
        // A connection learns that the file is in WAL mode by reading it; a checkpoint does not read it.
        db.pragma('schema_version');
        this.finishing.set(path, db);
      }
      const [row] = db.pragma('wal_checkpoint(PASSIVE)') as {
        busy: number;
        log: number;
        checkpointed: number;
      }[];
      if (row.busy === 0 && row.log === row.checkpointed) {
        log = row.log;
        salt = walSalt(path);
      }
    } catch (error) {
      this.onError?.(`${path}: ${String(error)}`);
    }
    this.worker.postMessage({ finished: path, log, salt });
  }

  /** Runs a last checkpoint and ends the worker. */
  async stop(): Promise<void> {
    // The worker is unref'd so that it never keeps a process alive on its own; while it runs its last
    // checkpoint it must, or a process with nothing else to do would exit with `stop()` still pending.
    this.worker.ref();
    this.worker.postMessage({ stop: true });
    await this.exited;
    for (const db of this.finishing.values()) db.close();
    this.finishing.clear();
  }
}
