import { Worker } from 'node:worker_threads';

const WORKER_SOURCE = `
const { workerData, parentPort } = require('node:worker_threads');
const { existsSync } = require('node:fs');
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
      parentPort.postMessage(path + ': ' + String(error));
    }
  }
};
const checkpoint = () => {
  openThoseThatExist();
  for (const db of databases) {
    try { db.pragma('wal_checkpoint(PASSIVE)'); } catch (error) { parentPort.postMessage(db.name + ': ' + String(error)); }
  }
};
const timer = setInterval(checkpoint, workerData.intervalMs);
parentPort.on('message', () => {
  clearInterval(timer);
  checkpoint();
  for (const db of databases) db.close();
  parentPort.close();
});
`;

/**
 * Moves SQLite's WAL checkpoints off the request path. With automatic checkpoints, the commit that pushes
 * the WAL past its threshold copies pages into the database file and fsyncs it while the event loop waits;
 * here a worker thread with its own connections runs passive checkpoints on a timer instead (they never
 * block writers), and the connections of the main thread have `wal_autocheckpoint = 0`.
 */
export class SqliteCheckpointer {
  private readonly worker: Worker;
  private readonly exited: Promise<void>;

  constructor(paths: string[], intervalMs = 1000, onError?: (message: string) => void) {
    this.worker = new Worker(WORKER_SOURCE, {
      eval: true,
      workerData: { paths, intervalMs, driver: require.resolve('better-sqlite3') },
    });
    this.worker.on('message', (message: string) => onError?.(message));
    // Anything the thread throws all the same is reported like its checkpoints' errors, not rethrown here.
    this.worker.on('error', (error) => onError?.(String(error)));
    this.worker.unref();
    this.exited = new Promise((resolve) => this.worker.once('exit', () => resolve()));
  }

  /** Runs a last checkpoint and ends the worker. */
  async stop(): Promise<void> {
    // The worker is unref'd so that it never keeps a process alive on its own; while it runs its last
    // checkpoint it must, or a process with nothing else to do would exit with `stop()` still pending.
    this.worker.ref();
    this.worker.postMessage('stop');
    await this.exited;
  }
}
