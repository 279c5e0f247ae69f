import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { waitFor } from '@cip/shared/testing';
import { SqliteCheckpointer } from './sqlite-checkpointer';
import { openSqliteDatabase } from './sqlite-database';

describe('the WAL checkpointer thread', () => {
  it('reports a store whose directory was removed before it opened it, and the process goes on', async () => {
    // A store closed and its data directory removed while the thread was still starting (a CI run lost a
    // whole spec file to this: the thread's open threw, as an uncaught exception of the test's process).
    const dir = mkdtempSync(join(tmpdir(), 'cip-checkpointer-'));
    const kept = join(dir, 'kept.sqlite');
    const db = openSqliteDatabase(kept);
    const gone = join(mkdtempSync(join(tmpdir(), 'cip-checkpointer-gone-')), 'gone.sqlite');
    rmSync(join(gone, '..'), { recursive: true, force: true });
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
});
