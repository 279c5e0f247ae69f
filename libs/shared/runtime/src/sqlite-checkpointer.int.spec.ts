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

  it('checkpoints a store created after it started, without reporting it missing before', async () => {
    // A fresh data directory: the card vaults are created by their context after the checkpointer starts
    // (`npm start` printed "WAL checkpoint failed: unable to open database file" once on every first start).
    const dir = mkdtempSync(join(tmpdir(), 'cip-checkpointer-late-'));
    const late = join(dir, 'late.sqlite');
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
        await waitFor(() => statSync(late).size > before, { what: 'the late store checkpointed' });
      } finally {
        db.close();
      }
      expect(reported).toEqual([expect.stringContaining(gone)]);
    } finally {
      await checkpointer.stop();
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('checkpoints a store whose file it found before the store had set up its journal', async () => {
    // The file exists, empty, when the thread looks (the store's connection has created it and not yet
    // switched it to WAL). A connection that never read the file stays in rollback mode, where a checkpoint
    // does nothing, so the store's WAL would grow for good (a CI run timed out on the spec above this way).
    const dir = mkdtempSync(join(tmpdir(), 'cip-checkpointer-empty-'));
    const path = join(dir, 'empty.sqlite');
    writeFileSync(path, '');
    const gone = inRemovedDirectory();
    const reported: string[] = [];
    const checkpointer = new SqliteCheckpointer([gone, path], 20, (message) => reported.push(message));
    try {
      await waitFor(() => reported.length > 0, { what: 'the thread to look at its files' });
      const db = openSqliteDatabase(path);
      try {
        db.exec('CREATE TABLE t (v TEXT)');
        db.prepare('INSERT INTO t VALUES (?)').run('x'.repeat(100_000));
        const before = statSync(path).size;
        await waitFor(() => statSync(path).size > before, {
          what: 'the store found empty checkpointed',
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
});
