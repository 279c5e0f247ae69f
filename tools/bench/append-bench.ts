import { SqliteEventStore, type EventData } from '@cip/shared/eventing';
import { openSqliteDatabase, timeOrderedUuid } from '@cip/shared/runtime';
import type { Event } from '@event-driven-io/emmett';
import {
  SQLiteEventStoreDefaultStreamVersion,
  appendToStream,
  createEventStoreSchema,
  getSQLiteEventStore,
  sqliteConnection,
  type SQLiteConnection,
} from '@event-driven-io/emmett-sqlite';
import { randomUUID } from 'node:crypto';
import { closeSync, fdatasyncSync, mkdtempSync, openSync, rmSync, writeSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

/** One printed figure of a benchmark; `target` is absent for figures that are measured but not judged. */
export interface Figure {
  label: string;
  value: number;
  unit: string;
  target?: { op: '>=' | '<='; value: number };
}

export function verdict(figure: Figure): 'PASS' | 'FAIL' | 'MEASURED' {
  if (!figure.target) return 'MEASURED';
  const { op, value } = figure.target;
  return (op === '>=' ? figure.value >= value : figure.value <= value) ? 'PASS' : 'FAIL';
}

export function formatNumber(value: number): string {
  const digits = Number.isInteger(value) || Math.abs(value) >= 100 ? 0 : Math.abs(value) >= 10 ? 1 : 2;
  return value.toLocaleString('en-US', { minimumFractionDigits: digits, maximumFractionDigits: digits });
}

export function formatTarget(figure: Figure): string {
  return figure.target ? `${figure.target.op} ${formatNumber(figure.target.value)} ${figure.unit}` : '-';
}

export function printFigures(figures: Figure[]): void {
  for (const f of figures) {
    const target = f.target ? `   (target ${formatTarget(f)}: ${verdict(f)})` : '';
    console.log(`  ${f.label.padEnd(58)} ${formatNumber(f.value).padStart(10)} ${f.unit}${target}`);
  }
}

const SYNCHRONOUS = ['OFF', 'NORMAL', 'FULL', 'EXTRA'];

const WRITERS = 64;
const APPENDS_PER_WRITER = 500;
/** emmett-sqlite commits a few hundred appends a second here: a fixed 64×500 would take minutes. */
const EMMETT_TIME_BOX_MS = 4_000;

/** The same event for both stores: the shape of the contract suite's `testEvent`. */
function benchEvent(n: number): EventData {
  return {
    type: 'BenchEventAppended',
    data: { n, name: 'bench', amount: 100_000_001 },
    metadata: {
      eventId: timeOrderedUuid(), // as the platform's events (envelope)
      occurredAt: new Date().toISOString(),
      distributorId: 'dst-bench',
      environment: 'sandbox',
      correlationId: randomUUID(),
      schemaVersion: 1,
    },
  };
}

type EmmettEvent = Event<string, Record<string, unknown>, Record<string, unknown>>;

function emmettEvent(n: number): EmmettEvent {
  const e = benchEvent(n);
  return { type: e.type, data: e.data, metadata: { ...e.metadata } };
}

function tempDir(label: string): string {
  return mkdtempSync(join(tmpdir(), `cip-bench-${label}-`));
}

/**
 * The raw fdatasync rate of this disk: a 128-byte append then `fdatasync`, for `durationMs`, in slices that
 * `between` interleaves with another measurement (the single writer), so that both meet the same disk: its
 * rate drifts by a third within seconds here, and a ratio of two runs seconds apart measured the drift.
 */
async function fsyncRate(
  durationMs: number,
  between: (sliceMs: number) => Promise<void>,
): Promise<{ syncs: number; perSecond: number; msPerSync: number }> {
  const dir = tempDir('fsync');
  const fd = openSync(join(dir, 'log'), 'a');
  const record = Buffer.alloc(128, 'x');
  let syncs = 0;
  let elapsed = 0;
  try {
    for (let slice = 0; slice < SLICES; slice++) {
      const started = performance.now();
      // Appends grow the file like a WAL does, so each sync also pays for the size change, as SQLite's does.
      while (performance.now() - started < durationMs / SLICES) {
        writeSync(fd, record);
        fdatasyncSync(fd);
        syncs++;
      }
      elapsed += performance.now() - started;
      await between(durationMs / SLICES);
    }
  } finally {
    closeSync(fd);
    rmSync(dir, { recursive: true, force: true });
  }
  return { syncs, perSecond: (syncs / elapsed) * 1000, msPerSync: elapsed / syncs };
}

/** Slices of the interleaved fdatasync and single-writer measurements. */
const SLICES = 8;

interface StoreRun {
  events: number;
  failed: number;
  elapsedMs: number;
  perSecond: number;
}

function run(events: number, failed: number, elapsedMs: number): StoreRun {
  return { events, failed, elapsedMs, perSecond: (events / elapsedMs) * 1000 };
}

async function withSqliteStore<T>(
  label: string,
  body: (store: SqliteEventStore, commits: { count: number; appends: number }) => Promise<T>,
): Promise<T & { pragmas: string }> {
  const dir = tempDir(label);
  const db = openSqliteDatabase(join(dir, 'events.sqlite'));
  const commits = { count: 0, appends: 0 };
  const store = new SqliteEventStore(db, {
    name: `bench:${label}`,
    onCommit: (appends) => {
      commits.count++;
      commits.appends += appends;
    },
  });
  try {
    const sync = db.pragma('synchronous', { simple: true }) as number;
    const pragmas = `journal_mode=${db.pragma('journal_mode', { simple: true })}, synchronous=${SYNCHRONOUS[sync]}`;
    return { ...(await body(store, commits)), pragmas };
  } finally {
    await store.close();
    db.close();
    rmSync(dir, { recursive: true, force: true });
  }
}

/** One writer awaiting each append, measured in the slices `fsyncRate` gives it (interleaved with its own). */
async function sqliteSingleWriterBesideFsync(durationMs: number) {
  return withSqliteStore('single', async (store) => {
    let events = 0;
    let elapsed = 0;
    const fsync = await fsyncRate(durationMs, async (sliceMs) => {
      const started = performance.now();
      while (performance.now() - started < sliceMs) {
        await store.append(`bench-${randomUUID()}`, [benchEvent(events)], { expectedRevision: 'no_stream' });
        events++;
      }
      elapsed += performance.now() - started;
    });
    return { ...run(events, 0, elapsed), fsync };
  });
}

async function sqliteConcurrentWriters() {
  return withSqliteStore('concurrent', async (store, commits) => {
    let failed = 0;
    const started = performance.now();
    const counts = await Promise.all(
      Array.from({ length: WRITERS }, async () => {
        let written = 0;
        for (let i = 0; i < APPENDS_PER_WRITER; i++) {
          try {
            await store.append(`bench-${randomUUID()}`, [benchEvent(i)], { expectedRevision: 'no_stream' });
            written++;
          } catch {
            failed++;
          }
        }
        return written;
      }),
    );
    const result = run(
      counts.reduce((a, b) => a + b, 0),
      failed,
      performance.now() - started,
    );
    return {
      ...result,
      commits: commits.count,
      appendsPerCommit: commits.appends / Math.max(commits.count, 1),
    };
  });
}

/** A FIFO lock: emmett's store shares one connection per instance, so concurrent appends must take turns. */
function serialised(): <T>(work: () => Promise<T>) => Promise<T> {
  let tail: Promise<unknown> = Promise.resolve();
  return (work) => {
    const next = tail.then(work, work);
    tail = next.catch(() => undefined);
    return next;
  };
}

/**
 * emmett-sqlite logs every failed transaction with console.log; under load that would drown the figures.
 * Failures are counted by the caller instead.
 */
async function withQuietConsole<T>(body: () => Promise<T>): Promise<T> {
  const log = console.log;
  console.log = () => undefined;
  try {
    return await body();
  } finally {
    console.log = log;
  }
}

async function concurrentTimeBoxed(append: (n: number) => Promise<void>): Promise<StoreRun> {
  let events = 0;
  let failed = 0;
  const started = performance.now();
  await Promise.all(
    Array.from({ length: WRITERS }, async () => {
      for (let i = 0; i < APPENDS_PER_WRITER && performance.now() - started < EMMETT_TIME_BOX_MS; i++) {
        try {
          await append(i);
          events++;
        } catch {
          failed++;
        }
      }
    }),
  );
  return run(events, failed, performance.now() - started);
}

async function emmettPragmas(fileName: string): Promise<string> {
  // A fresh connection from emmett's own factory: synchronous is per connection, so this shows what each
  // of the store's connections runs with (emmett sets only journal_mode; synchronous is the build default).
  const connection = sqliteConnection({ fileName });
  try {
    const journal = await connection.querySingle<{ journal_mode: string }>('PRAGMA journal_mode');
    const sync = await connection.querySingle<{ synchronous: number }>('PRAGMA synchronous');
    return `journal_mode=${journal?.journal_mode}, synchronous=${SYNCHRONOUS[sync?.synchronous ?? -1]}`;
  } finally {
    connection.close();
  }
}

/** emmett's public API, as an application would use it: one `getSQLiteEventStore` shared by all writers. */
async function emmettStore(): Promise<StoreRun & { pragmas: string }> {
  const dir = tempDir('emmett');
  const fileName = join(dir, 'emmett.sqlite');
  try {
    const store = getSQLiteEventStore({ fileName });
    const turn = serialised();
    const result = await withQuietConsole(() =>
      concurrentTimeBoxed(async (n) => {
        await turn(() =>
          store.appendToStream(`bench-${randomUUID()}`, [emmettEvent(n)], {
            expectedStreamVersion: SQLiteEventStoreDefaultStreamVersion,
          }),
        );
      }),
    );
    return { ...result, pragmas: await emmettPragmas(fileName) };
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

/**
 * emmett's lower-level `appendToStream` on one connection kept open for the whole run: the store above opens
 * and closes a connection (and so checkpoints the WAL) around every append, which this variant avoids.
 */
async function emmettKeptOpenConnection(): Promise<StoreRun> {
  const dir = tempDir('emmett-conn');
  let connection: SQLiteConnection | undefined;
  try {
    connection = sqliteConnection({ fileName: join(dir, 'emmett.sqlite') });
    const open = connection;
    await createEventStoreSchema(open);
    const turn = serialised();
    return await withQuietConsole(() =>
      concurrentTimeBoxed(async (n) => {
        const result = await turn(() =>
          appendToStream(open, `bench-${randomUUID()}`, 'bench', [emmettEvent(n)], {
            expectedStreamVersion: SQLiteEventStoreDefaultStreamVersion,
          }),
        );
        if (!result.success) throw new Error('append rejected');
      }),
    );
  } finally {
    connection?.close();
    rmSync(dir, { recursive: true, force: true });
  }
}

function describeRun(r: StoreRun): string {
  const failed = r.failed ? `, ${r.failed} FAILED appends (not counted)` : '';
  return `${r.events.toLocaleString('en-US')} events in ${formatNumber(r.elapsedMs)} ms${failed}`;
}

export async function appendBench(): Promise<Figure[]> {
  console.log('\n== Durable appends (event store on this disk) ==');

  const single = await sqliteSingleWriterBesideFsync(2_000);
  const { fsync } = single;
  console.log(
    `(a) raw fdatasync: ${fsync.syncs.toLocaleString('en-US')} syncs of a 128-byte append in 2 s ` +
      `(${SLICES} slices, each followed by one of (b))`,
  );
  console.log(
    `(b) SqliteEventStore, 1 writer awaiting each append: ${describeRun(single)} [${single.pragmas}]`,
  );

  const concurrent = await sqliteConcurrentWriters();
  console.log(
    `(c) SqliteEventStore, ${WRITERS} writers × ${APPENDS_PER_WRITER} appends of 1 event to new streams: ` +
      `${describeRun(concurrent)} [${concurrent.pragmas}]; ${concurrent.commits.toLocaleString('en-US')} group ` +
      `commits, ${formatNumber(concurrent.appendsPerCommit)} appends per commit`,
  );

  const emmett = await emmettStore();
  console.log(
    `(d) emmett-sqlite 0.38.5 getSQLiteEventStore (defaults), same ${WRITERS} writers and events, taking turns ` +
      `on the store (time box ${EMMETT_TIME_BOX_MS / 1000} s): ${describeRun(emmett)} [${emmett.pragmas}]`,
  );

  const emmettConn = await emmettKeptOpenConnection();
  console.log(
    `(d') emmett-sqlite appendToStream on one kept-open connection, same workload: ${describeRun(emmettConn)} ` +
      '[same pragmas as (d)]',
  );

  const figures: Figure[] = [
    { label: '(a) raw fdatasync rate', value: fsync.perSecond, unit: 'syncs/s' },
    { label: '(a) raw fdatasync latency', value: fsync.msPerSync, unit: 'ms/sync' },
    { label: '(b) SqliteEventStore, 1 writer', value: single.perSecond, unit: 'events/s' },
    {
      // Issue 16: one writer awaiting each append is bound by the commit's fsync; the rest is overhead.
      label: '(b)/(a) 1 writer against the raw fdatasync rate',
      value: single.perSecond / fsync.perSecond,
      unit: '×',
      target: { op: '>=', value: 0.8 },
    },
    {
      label: `(c) SqliteEventStore, ${WRITERS} concurrent writers`,
      value: concurrent.perSecond,
      unit: 'events/s',
      target: { op: '>=', value: 20_000 },
    },
    {
      label: `(d) emmett-sqlite store, ${WRITERS} concurrent writers`,
      value: emmett.perSecond,
      unit: 'events/s',
    },
    {
      label: '(c)/(d) speed-up over emmett-sqlite store',
      value: concurrent.perSecond / emmett.perSecond,
      unit: '×',
      target: { op: '>=', value: 3 },
    },
    { label: "(d') emmett-sqlite, kept-open connection", value: emmettConn.perSecond, unit: 'events/s' },
    {
      label: "(c)/(d') speed-up over emmett kept-open connection",
      value: concurrent.perSecond / emmettConn.perSecond,
      unit: '×',
    },
  ];
  printFigures(figures);
  return figures;
}

if (require.main === module) {
  appendBench().catch((error) => {
    console.error(error);
    process.exit(1);
  });
}
