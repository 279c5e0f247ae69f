import { openSqliteDatabase, SqliteDatabase } from '@cip/shared/runtime';
import { waitFor } from '@cip/shared/testing';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { EventData, RecordedEvent } from '../event-store.port';
import { SqliteEventStore } from '../sqlite/sqlite-event-store';
import type { KafkaMessageBus } from './kafka-message-bus';
import { KafkaRelay } from './kafka-relay';

const event = (type: string): EventData => ({
  type,
  data: {},
  metadata: { eventId: `${type}-${Math.random()}`, occurredAt: new Date().toISOString(), schemaVersion: 1 },
});

/** Kafka as the relay sees it: a producer that fails while `down`. */
function fakeBus(state: { down: boolean; produced: RecordedEvent[] }): KafkaMessageBus {
  return {
    checkPartitions: async () => undefined,
    publishRecorded: async (events: RecordedEvent[]) => {
      if (state.down) throw Object.assign(new Error('broker unreachable'), { code: 'ECONNREFUSED' });
      state.produced.push(...events);
    },
  } as unknown as KafkaMessageBus;
}

/** What the relay process's /health reports of each relay loop (Kafka played by a fake producer). */
describe('KafkaRelay status: running, retrying, stopped, and its lag', () => {
  let dataDir: string;
  let db: SqliteDatabase;
  let store: SqliteEventStore;
  const relays: KafkaRelay[] = [];

  beforeEach(() => {
    dataDir = mkdtempSync(join(tmpdir(), 'cip-relay-status-'));
    db = openSqliteDatabase(join(dataDir, 'sandbox.sqlite'));
    store = new SqliteEventStore(db, { name: 'sqlite:sandbox', pollIntervalMs: 10 });
  });

  afterEach(async () => {
    for (const relay of relays.splice(0)) await relay.stop();
    await store.close();
    db.close();
    rmSync(dataDir, { recursive: true, force: true });
  });

  it('reports retrying with its lag while Kafka is down, and running once it produced the backlog', async () => {
    const kafka = { down: true, produced: [] as RecordedEvent[] };
    const relay = new KafkaRelay({ store, bus: fakeBus(kafka) });
    relays.push(relay);
    await store.append('usr-1', [event('UserCreated'), event('UserActivated')]);
    await relay.start();

    await waitFor(() => relay.status().state === 'retrying', {
      what: 'the relay to report retrying while Kafka is down',
      timeoutMs: 20_000,
      intervalMs: 50,
    });
    expect(relay.status().consecutiveRetries).toBeGreaterThanOrEqual(KafkaRelay.RETRYING_AFTER_ATTEMPTS);
    expect(await relay.backlog()).toBe(2);

    kafka.down = false;
    await waitFor(() => relay.status().state === 'running' && kafka.produced.length === 2, {
      what: 'the relay to produce its backlog once Kafka is back',
      timeoutMs: 20_000,
      intervalMs: 50,
    });
    await waitFor(async () => (await relay.backlog()) === 0, {
      what: 'no lag left (its own checkpoint not counted)',
      timeoutMs: 5_000,
      intervalMs: 20,
    });
  }, 45_000); // The relay backs off up to 3.2 s between attempts: five failures and a retry take about 6 s.

  it('reports stopped when a second relay writes the same checkpoint stream', async () => {
    const first = new KafkaRelay({ store, bus: fakeBus({ down: false, produced: [] }) });
    const second = new KafkaRelay({ store, bus: fakeBus({ down: false, produced: [] }) });
    relays.push(first, second);
    await first.start();
    await second.start();
    await store.append('usr-1', [event('UserCreated')]);
    await waitFor(() => [first, second].some((relay) => relay.status().state === 'stopped'), {
      what: 'one of the two relays to stop on the checkpoint conflict',
      timeoutMs: 10_000,
      intervalMs: 20,
    });
  });
});
