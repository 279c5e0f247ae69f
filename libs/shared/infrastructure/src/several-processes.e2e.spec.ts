import { SqliteEventStore } from '@cip/shared/eventing';
import { openSqliteDatabase } from '@cip/shared/runtime';
import { waitFor, within } from '@cip/shared/testing';
import { ChildProcess, fork } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

/** The child as the e2e project's global setup built it into dist/. */
const CHILD = join(
  __dirname,
  '..',
  '..',
  '..',
  '..',
  'dist/libs/shared/infrastructure/src/testing/shared-data-dir.child.js',
);
/** A head watcher that never ticks within a test: whatever such a process sees, it did not poll for. */
const NEVER_MS = 3_600_000;

interface Acknowledged {
  revision: number;
  position: number;
  eventId: string;
}

/** One process of the embedded runtime on the shared DATA_DIR (see shared-data-dir.child.ts). */
class RuntimeProcess {
  readonly loaded: Promise<void>;
  readonly ready: Promise<{ masterKey: string }>;
  private next = 0;
  private readonly pending = new Map<number, { resolve(v: unknown): void; reject(e: Error): void }>();
  private stderr = '';

  private constructor(private readonly child: ChildProcess) {
    child.stderr?.on('data', (chunk: Buffer) => (this.stderr += chunk.toString()));
    let loaded = () => undefined as void;
    this.loaded = new Promise((resolve) => (loaded = resolve));
    this.ready = new Promise((resolve, reject) => {
      child.on(
        'message',
        (message: {
          id?: number;
          loaded?: boolean;
          ready?: boolean;
          masterKey?: string;
          result?: unknown;
          error?: string;
        }) => {
          if (message.loaded) return loaded();
          if (message.ready) return resolve({ masterKey: message.masterKey! });
          const waiting = this.pending.get(message.id!);
          this.pending.delete(message.id!);
          if (message.error !== undefined) waiting?.reject(new Error(message.error));
          else waiting?.resolve(message.result);
        },
      );
      child.once('exit', (code) => {
        const error = new Error(`runtime process exited (${code}): ${this.stderr}`);
        reject(error);
        for (const waiting of this.pending.values()) waiting.reject(error);
      });
    });
  }

  static start(dataDir: string, pollIntervalMs: number): RuntimeProcess {
    return new RuntimeProcess(
      fork(CHILD, [dataDir, String(pollIntervalMs)], {
        stdio: ['ignore', 'ignore', 'pipe', 'ipc'],
      }),
    );
  }

  /** Opens the files (see the child). */
  open(): void {
    this.child.send({ op: 'open' });
  }

  request<T>(request: Record<string, unknown>, what: string): Promise<T> {
    const id = this.next++;
    const reply = new Promise<T>((resolve, reject) =>
      this.pending.set(id, { resolve: resolve as (v: unknown) => void, reject }),
    );
    this.child.send({ id, ...request });
    return within(reply, { what, timeoutMs: 30_000 });
  }

  async close(): Promise<void> {
    if (this.child.exitCode !== null) return;
    const exited = new Promise((resolve) => this.child.once('exit', resolve));
    await this.request({ op: 'close' }, 'a runtime process closing').catch(() => undefined);
    await exited;
  }

  kill(): void {
    if (this.child.exitCode === null) this.child.kill('SIGKILL');
  }
}

describe('embedded runtime: several processes on one DATA_DIR (the split topology)', () => {
  const dataDir = mkdtempSync(join(tmpdir(), 'cip-processes-'));
  const processes: RuntimeProcess[] = [];
  const start = (pollIntervalMs: number) => {
    const started = RuntimeProcess.start(dataDir, pollIntervalMs);
    processes.push(started);
    return started;
  };
  afterAll(async () => {
    await Promise.all(processes.map((p) => p.close().catch(() => p.kill())));
    rmSync(dataDir, { recursive: true, force: true });
  }, 60_000);

  let writerA: RuntimeProcess;
  let writerB: RuntimeProcess;
  let follower: RuntimeProcess;
  let drainer: RuntimeProcess;

  it('starts them at once on a fresh directory: every one opens the files and holds the same master key', async () => {
    [writerA, writerB, follower, drainer] = [50, 50, 20, NEVER_MS].map(start);
    // Once loaded, told together: they race to create the files and the key.
    await within(Promise.all(processes.map((p) => p.loaded)), { what: 'the processes loaded' });
    for (const p of processes) p.open();
    const keys = await Promise.all(processes.map((p) => p.ready.then((r) => r.masterKey)));
    expect(new Set(keys).size).toBe(1);
  }, 60_000);

  it('lets exactly one of two writers win each revision of a stream: nothing acknowledged lost, positions unique', async () => {
    await follower.request({ op: 'consume', group: 'follower', topic: 'race' }, 'the follower consuming');
    await drainer.request({ op: 'consume', group: 'drainer', topic: 'race' }, 'the drainer consuming');
    const results = await Promise.all(
      [writerA, writerB].map((writer, i) =>
        writer.request<{ acknowledged: Acknowledged[] }>(
          { op: 'race', stream: 'race-1', appends: 150, writer: `w${i}` },
          `writer ${i} acknowledging 150 appends`,
        ),
      ),
    );
    const acknowledged = results.flatMap((r) => r.acknowledged);

    const db = openSqliteDatabase(join(dataDir, 'sandbox.sqlite'));
    const store = new SqliteEventStore(db, { name: 'sqlite:check' });
    try {
      const stored = await store.readStream('race-1');
      // Every revision once, each acknowledged to exactly the writer whose event holds it.
      expect(stored.map((e) => e.revision)).toEqual(Array.from({ length: 300 }, (_, i) => i));
      const byRevision = new Map(stored.map((e) => [e.revision, e]));
      for (const ack of acknowledged) {
        expect([
          ack.revision,
          byRevision.get(ack.revision)?.metadata.eventId,
          byRevision.get(ack.revision)?.position,
        ]).toEqual([ack.revision, ack.eventId, ack.position]);
      }
      expect(new Set(acknowledged.map((ack) => ack.revision)).size).toBe(300);
      // Positions: unique, and in the order of the revisions they were given with.
      const positions = stored.map((e) => e.position);
      expect([...positions].sort((x, y) => x - y)).toEqual(positions);
      expect(new Set(positions).size).toBe(300);
    } finally {
      await store.close();
      db.close();
    }
  }, 60_000);

  it("delivers the writers' appends to the consumer of another process: drained at once, or seen at the head watcher's tick", async () => {
    // The drainer's head watcher never ticks: only its drain can have made it read the other processes' appends.
    const drained = await drainer.request<string[]>(
      { op: 'drain', group: 'drainer' },
      'the drainer draining',
    );
    expect(drained).toHaveLength(300);
    expect(new Set(drained).size).toBe(300);
    await waitFor(
      async () =>
        (await follower.request<string[]>({ op: 'seen', group: 'follower' }, 'the follower')).length === 300,
      {
        what: "the follower seeing the writers' 300 events without draining",
        timeoutMs: 10_000,
        intervalMs: 20,
      },
    );
  });
});
