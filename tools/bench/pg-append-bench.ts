import { SqliteEventStore, type EventData, type EventStore } from '@cip/shared/eventing';
import { PostgresEventStore } from '@cip/shared/eventing/distributed';
import { openSqliteDatabase } from '@cip/shared/runtime';
import { fork } from 'node:child_process';
import { randomBytes, randomUUID } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Client, Pool } from 'pg';
import { printFigures, type Figure } from './append-bench';

/**
 * Append throughput of the PostgreSQL event store beside the SQLite one (issue 32): one writer awaiting each
 * append, 16 concurrent writers in one process, and 16 writers spread over 4 processes (4 stores, each with
 * its pool and group commit: the append lock serialises their commits), as 4 stores in this process and as
 * 4 child processes (each its own event loop, started together). PostgreSQL also without group
 * commit (one transaction per append), and a bare INSERT per transaction from 16 connections with no lock
 * (what the database's own group commit gives when commits do not wait for each other: the ceiling of a
 * design without the append lock). Each figure runs for DURATION_MS.
 *
 *   DATABASE_URL=postgres://… node dist/tools/bench/pg-append-bench.js
 */
const DURATION_MS = Number(process.env.BENCH_DURATION_MS ?? 3_000);

function benchEvent(n: number): EventData {
  return {
    type: 'BenchEventAppended',
    data: { n, name: 'bench', amount: 100_000_001 },
    metadata: {
      eventId: randomUUID(),
      occurredAt: new Date().toISOString(),
      distributorId: 'dst-bench',
      environment: 'sandbox',
      correlationId: randomUUID(),
      schemaVersion: 1,
    },
  };
}

/** `writers` loops appending one event each to their own stream until the time is up; events per second. */
async function appendFor(stores: EventStore[], writers: number): Promise<number> {
  const until = performance.now() + DURATION_MS;
  let appended = 0;
  const started = performance.now();
  await Promise.all(
    Array.from({ length: writers }, async (_, w) => {
      const store = stores[w % stores.length];
      const stream = `bnc-${randomUUID()}`;
      for (let n = 0; performance.now() < until; n++) {
        await store.append(stream, [benchEvent(n)], { expectedRevision: n === 0 ? 'no_stream' : n - 1 });
        appended++;
      }
    }),
  );
  return appended / ((performance.now() - started) / 1000);
}

/** Bare INSERTs, one per transaction, from `connections` connections: no lock, a sequence. */
async function bareInsertsFor(url: string, connections: number): Promise<number> {
  const pool = new Pool({ connectionString: url, max: connections });
  pool.on('error', () => undefined);
  await pool.query('CREATE TABLE IF NOT EXISTS bench_bare (id bigserial PRIMARY KEY, data jsonb NOT NULL)');
  const until = performance.now() + DURATION_MS;
  let inserted = 0;
  const started = performance.now();
  await Promise.all(
    Array.from({ length: connections }, async () => {
      const client = await pool.connect();
      try {
        while (performance.now() < until) {
          await client.query('INSERT INTO bench_bare (data) VALUES ($1)', [JSON.stringify(benchEvent(0))]);
          inserted++;
        }
      } finally {
        client.release();
      }
    }),
  );
  const rate = inserted / ((performance.now() - started) / 1000);
  await pool.end();
  return rate;
}

async function withDatabase<T>(serverUrl: string, run: (url: string) => Promise<T>): Promise<T> {
  const name = `cip_bench_${randomBytes(4).toString('hex')}`;
  const admin = new Client({ connectionString: serverUrl });
  await admin.connect();
  await admin.query(`CREATE DATABASE ${name}`);
  const url = new URL(serverUrl);
  url.pathname = `/${name}`;
  try {
    return await run(url.toString());
  } finally {
    await admin.query(`DROP DATABASE ${name} WITH (FORCE)`);
    await admin.end();
  }
}

async function postgres(url: string, writers: number, processes: number, maxAppendsPerCommit?: number) {
  const stores = await Promise.all(
    Array.from({ length: processes }, (_, p) =>
      PostgresEventStore.open({ name: `postgres:bench-${p}`, connectionString: url, maxAppendsPerCommit }),
    ),
  );
  try {
    return await appendFor(stores, writers);
  } finally {
    await Promise.all(stores.map((s) => s.close()));
  }
}

/** `processes` child processes, each one store with `writers / processes` writers; their rates summed. */
async function postgresProcesses(url: string, writers: number, processes: number): Promise<number> {
  const children = Array.from({ length: processes }, () =>
    fork(__filename, ['--worker', url, String(writers / processes)], { stdio: 'inherit' }),
  );
  const exited = children.map((child) => new Promise((resolve) => child.once('exit', resolve)));
  const messages = children.map((child) => {
    const received: unknown[] = [];
    const waiting: ((message: unknown) => void)[] = [];
    child.on('message', (message) => (waiting.shift() ?? ((m: unknown) => received.push(m)))(message));
    return () =>
      new Promise<unknown>((resolve) => {
        if (received.length) resolve(received.shift());
        else waiting.push(resolve);
      });
  });
  await Promise.all(messages.map((next) => next()));
  for (const child of children) child.send('go');
  const rates = await Promise.race([
    Promise.all(messages.map((next) => next() as Promise<number>)),
    Promise.all(exited).then(() => {
      throw new Error('the bench workers exited without a figure');
    }),
  ]);
  await Promise.all(exited);
  return rates.reduce((a, b) => a + b, 0);
}

/** In a child process: opens its store, says ready, appends for DURATION_MS on 'go', sends its rate. */
async function worker(url: string, writers: number): Promise<void> {
  const store = await PostgresEventStore.open({
    name: `postgres:bench-${process.pid}`,
    connectionString: url,
  });
  const go = new Promise((resolve) => process.once('message', resolve));
  process.send?.('ready');
  await go;
  const rate = await appendFor([store], writers);
  await store.close();
  process.send?.(rate, () => process.disconnect());
}

async function sqlite(writers: number): Promise<number> {
  const dir = mkdtempSync(join(tmpdir(), 'cip-bench-pg-sqlite-'));
  const db = openSqliteDatabase(join(dir, 'bench.sqlite'));
  const store = new SqliteEventStore(db, { name: 'sqlite:bench' });
  try {
    return await appendFor([store], writers);
  } finally {
    await store.close();
    db.close();
    rmSync(dir, { recursive: true, force: true });
  }
}

export async function pgAppendBench(): Promise<Figure[]> {
  const serverUrl = process.env.DATABASE_URL;
  if (!serverUrl) throw new Error('DATABASE_URL is not set (tools/ci/postgres.sh start prints one)');
  const figures: Figure[] = [];
  const measure = async (label: string, run: () => Promise<number>) => {
    figures.push({ label, value: await run(), unit: 'events/s' });
    printFigures(figures.slice(-1));
  };
  await measure('SQLite, 1 writer', () => sqlite(1));
  await measure('SQLite, 16 concurrent writers', () => sqlite(16));
  await withDatabase(serverUrl, async (url) => {
    await measure('PostgreSQL, 1 writer', () => postgres(url, 1, 1));
    await measure('PostgreSQL, 16 concurrent writers, 1 process', () => postgres(url, 16, 1));
    await measure('PostgreSQL, 16 writers over 4 stores in one process', () => postgres(url, 16, 4));
    await measure('PostgreSQL, 16 writers over 4 child processes', () => postgresProcesses(url, 16, 4));
    await measure('PostgreSQL, 16 writers, no group commit', () => postgres(url, 16, 1, 1));
    await measure('PostgreSQL, 16 writers over 4 stores, no group commit', () => postgres(url, 16, 4, 1));
    await measure('PostgreSQL bare INSERT, 1 connection, no lock', () => bareInsertsFor(url, 1));
    await measure('PostgreSQL bare INSERT, 16 connections, no lock', () => bareInsertsFor(url, 16));
  });
  return figures;
}

if (require.main === module && process.argv[2] === '--worker') {
  worker(process.argv[3], Number(process.argv[4])).catch((error) => {
    console.error(error);
    process.exit(1);
  });
} else if (require.main === module) {
  pgAppendBench().catch((error) => {
    console.error(error);
    process.exit(1);
  });
}
