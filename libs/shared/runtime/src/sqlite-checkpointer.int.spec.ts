import { mkdtempSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { waitFor } from '@cip/shared/testing';
import { SqliteCheckpointer } from './sqlite-checkpointer';
import { openSqliteDatabase } from './sqlite-database';

/** The path of a store in a directory that no longer exists. */
function inRemovedDirectory(): string {
  const gone = join(mkdtempSync(join(tmpdir(), 'cip-checkpointer-gone-')), 'gone.sqlite');
  rmSync(join(gone, '..'), { recursive: true, force: true });
  return gone;
}

describe('the WAL checkpointer thread', () => {
  it('reports a store whose directory was removed before it opened it, and the process goes on', async () => {
    // A store closed and its data directory removed while the thread was still starting (a CI run lost a
    // whole spec file to this: the thread's open threw, as an uncaught exception of the test's process).
    const dir = mkdtempSync(join(tmpdir(), 'cip-checkpointer-'));
    const kept = join(dir, 'kept.sqlite');
    const db = openSqliteDatabase(kept);
    const gone = inRemovedDirectory();
    const reported: string[] = [];
    const checkpointer = new SqliteCheckpointer([gone, kept], 20, (message) => reported.push(message));
    try {
      await waitFor(() => reported.length > 0, { what: 'the unopenable store reported' });
      expect(reported).toEqual([expect.stringContaining('directory does not exist')]);
    } finally {
      await checkpointer.stop();
      db.close();
      rmSync(dir, { recursive: true, force: true });
    }
  });

  // The store's file does not exist yet when the thread starts: the card vaults are created by their context
  // after the checkpointer (`npm start` printed "WAL checkpoint failed: unable to open database file" once on
  // every first start). Or it exists, empty, when the thread looks (the store's connection has created it and
  // not yet switched it to WAL): a connection that never read the file stays in rollback mode, where a
  // checkpoint does nothing, so the store's WAL would grow for good (a CI run timed out on it).
  it.each([
    ['created after it started, without reporting it missing before', false],
    ['whose file it found before the store had set up its journal', true],
  ])('checkpoints a store %s', async (_, foundEmpty) => {
    const dir = mkdtempSync(join(tmpdir(), 'cip-checkpointer-late-'));
    const late = join(dir, 'late.sqlite');
    if (foundEmpty) writeFileSync(late, '');
    // A store in a removed directory beside it: its report says the thread has looked at its files once.
    const gone = inRemovedDirectory();
    const reported: string[] = [];
    const checkpointer = new SqliteCheckpointer([gone, late], 20, (message) => reported.push(message));
    try {
      await waitFor(() => reported.length > 0, { what: 'the thread to look at its files' });
      const db = openSqliteDatabase(late);
      try {
        db.exec('CREATE TABLE t (v TEXT)');
        db.prepare('INSERT INTO t VALUES (?)').run('x'.repeat(100_000));
        const before = statSync(late).size;
        // The connection never checkpoints itself (wal_autocheckpoint = 0): the pages reach the database file
        // only through the checkpointer's thread.
        await waitFor(() => statSync(late).size > before, {
          what: 'the late store checkpointed',
          timeoutMs: 10_000,
        });
      } finally {
        db.close();
      }
      expect(reported).toEqual([expect.stringContaining(gone)]);
    } finally {
      await checkpointer.stop();
      rmSync(dir, { recursive: true, force: true });
    }
  });

  // Under a steady load the checkpoints race the writers and SQLite never starts the log again: the WAL grew
  // for as long as the writes went on (2.1 GiB in 30 s of POST /v1/users at 50 connections).
  it('keeps the WAL of a file written without a pause near its limit, by two connections of this thread', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'cip-checkpointer-bound-'));
    const file = join(dir, 'busy.sqlite');
    // As the embedded runtime opens a scope's file: events fsynced, derived data on a second connection.
    const events = openSqliteDatabase(file);
    const derived = openSqliteDatabase(file, { synchronous: 'NORMAL' });
    events.exec('CREATE TABLE events (position INTEGER PRIMARY KEY, data TEXT NOT NULL)');
    derived.exec('CREATE TABLE views (id INTEGER PRIMARY KEY, doc TEXT NOT NULL)');
    const append = events.prepare('INSERT INTO events (data) VALUES (?)');
    const project = derived.prepare('INSERT INTO views (id, doc) VALUES (?, ?)');
    const limit = 2 * 1024 * 1024;
    const reported: string[] = [];
    const walBytes: number[] = [];
    const checkpointer = new SqliteCheckpointer([file], 10, (message) => reported.push(message), {
      walLimitBytes: limit,
      onWalBytes: (path, bytes) => path === file && walBytes.push(bytes),
    });
    const wal = `${file}-wal`;
    const written = 32 * limit;
    const commits = written / (16 * 1024);
    let largest = 0;
    try {
      for (let i = 0; i < commits; i++) {
        append.run(`${i}:`.padEnd(12 * 1024, 'e'));
        project.run(i, `${i}:`.padEnd(4 * 1024, 'v'));
        largest = Math.max(largest, statSync(wal).size);
        // The writers leave the thread between commits, as the platform's do between turns.
        await new Promise((resolve) => setImmediate(resolve));
      }
    } finally {
      await checkpointer.stop();
    }
    try {
      // Unbounded, the WAL would hold all 64 MiB written, and the index pages beside them.
      expect(largest).toBeLessThan(8 * limit);
      expect(events.prepare('SELECT count(*) FROM events').pluck().get()).toBe(commits);
      expect(derived.prepare('SELECT count(*) FROM views').pluck().get()).toBe(commits);
      expect(events.pragma('integrity_check', { simple: true })).toBe('ok');
      expect(reported).toEqual([]);
      // What the metrics show: 0 at the start, then past the limit at times, never far past it.
      expect(walBytes[0]).toBe(0);
      expect(walBytes.some((bytes) => bytes > limit)).toBe(true);
      expect(Math.max(...walBytes)).toBeLessThan(8 * limit);
    } finally {
      events.close();
      derived.close();
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
