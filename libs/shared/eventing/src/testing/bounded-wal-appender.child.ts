import { openSqliteDatabase, SqliteCheckpointer } from '@cip/shared/runtime';
import { randomUUID } from 'node:crypto';
import { join } from 'node:path';
import { SqliteEventStore } from '../sqlite/sqlite-event-store';

// ---------------------------------------------------------------------------------------------------
// A child process for the bounded WAL's kill -9 test (bounded-wal-crash.e2e.spec.ts): opens `events.sqlite`
// in the directory given as the embedded runtime opens a scope's file (the event store's fsynced connection,
// a second one for derived data, the checkpointer's thread), with a WAL limit of 1 MiB, so that the log is
// started again many times a second. Appenders write ~8 KiB events to streams of their own without a pause,
// and a derived row beside each; each append is reported on stdout once acknowledged: `ack <stream> <revision>`.
// ---------------------------------------------------------------------------------------------------

const APPENDERS = 16;

async function main(dir: string): Promise<void> {
  const file = join(dir, 'events.sqlite');
  const db = openSqliteDatabase(file);
  const derived = openSqliteDatabase(file, { synchronous: 'NORMAL' });
  const store = new SqliteEventStore(db, { name: 'sqlite:bounded' });
  derived.exec('CREATE TABLE IF NOT EXISTS views (stream TEXT, revision INTEGER, doc TEXT)');
  const project = derived.prepare('INSERT INTO views VALUES (?, ?, ?)');
  new SqliteCheckpointer([file], 10, (message) => process.stderr.write(`${message}\n`), {
    walLimitBytes: 1024 * 1024,
  });
  const padding = 'x'.repeat(8 * 1024);
  await Promise.all(
    Array.from({ length: APPENDERS }, async (_, n) => {
      const stream = `bounded-${n}`;
      for (let revision = 0; ; revision++) {
        const metadata = { eventId: randomUUID(), occurredAt: new Date().toISOString(), schemaVersion: 1 };
        await store.append(stream, [{ type: 'Appended', data: { revision, padding }, metadata }], {
          expectedRevision: revision === 0 ? 'no_stream' : revision - 1,
        });
        process.stdout.write(`ack ${stream} ${revision}\n`);
        project.run(stream, revision, padding);
      }
    }),
  );
}

main(process.argv[2]).catch((error) => {
  process.stderr.write(`${String(error)}\n`);
  process.exit(1);
});
