import { describeWhenConfigured } from '@cip/shared/testing';
import mongoose, { Connection } from 'mongoose';
import { randomBytes } from 'node:crypto';
import { idempotencyStoreContract } from '../contract/idempotency-store.contract';
import { MongoIdempotencyStore } from './mongo-idempotency-store';

describeWhenConfigured('MONGO_URL', 'idempotency store contract: MongoDB', (url) => {
  jest.setTimeout(30_000);
  let connection: Connection;
  idempotencyStoreContract({
    open: async () => {
      const dbName = `cip_contract_${randomBytes(6).toString('hex')}`;
      connection = await mongoose.createConnection(url, { dbName }).asPromise();
      // No TTL index: the suite's clock is fixed in the past, which MongoDB's TTL monitor would act on.
      return new MongoIdempotencyStore(connection);
    },
    cleanup: async () => {
      await connection.dropDatabase();
      await connection.close();
    },
  });
});

describeWhenConfigured('MONGO_URL', 'MongoDB idempotency store: a claim whose gateway died', (url) => {
  jest.setTimeout(30_000);
  const now = Date.UTC(2026, 0, 1);
  const day = 86_400_000;
  let connection: Connection;
  /** The event store's answer: the correlation ids whose events were appended (or an error: it cannot tell). */
  const appended = new Set<string>();
  let unavailable = false;
  let store: MongoIdempotencyStore;

  beforeAll(async () => {
    const dbName = `cip_contract_${randomBytes(6).toString('hex')}`;
    connection = await mongoose.createConnection(url, { dbName }).asPromise();
    store = new MongoIdempotencyStore(connection, {
      retentionMs: day,
      commandRan: async (correlationId) => {
        if (unavailable) throw new Error('$by_correlation_id is behind the log');
        return appended.has(correlationId);
      },
    });
  });
  afterAll(async () => {
    await connection?.dropDatabase();
    await connection?.close();
  });

  it('answers outcome_lost for the retention once its lease passed, when its command appended events', async () => {
    expect(await store.claim('ran', now, 60_000, 'req-1')).toEqual({ claimed: true });
    appended.add('req-1');
    expect(await store.claim('ran', now + 1_000, 60_000, 'req-2')).toEqual({
      claimed: false,
      record: { state: 'in_flight', leaseUntil: now + 60_000 },
    });
    for (const at of [now + 60_000, now + day - 1]) {
      expect(await store.claim('ran', at, 60_000, 'req-3')).toEqual({
        claimed: false,
        record: { state: 'outcome_lost' },
      });
    }
    expect(await store.purgeExpired(now + day - 1)).toBe(0);
    expect(await store.claim('ran', now + day, 60_000, 'req-4')).toEqual({ claimed: true });
  });

  it('takes it over when its command appended nothing, however late the retry, and keeps it until then', async () => {
    expect(await store.claim('never-ran', now, 60_000, 'req-5')).toEqual({ claimed: true });
    expect(await store.purgeExpired(now + 3_600_000)).toBe(0);
    expect(await store.claim('never-ran', now + 3_600_000, 60_000, 'req-6')).toEqual({ claimed: true });
    // The new claim is the one asked about next.
    appended.add('req-6');
    expect(await store.claim('never-ran', now + 3_700_000, 60_000, 'req-7')).toEqual({
      claimed: false,
      record: { state: 'outcome_lost' },
    });
  });

  it('answers 503 service_unavailable while the event store cannot tell, and decides nothing', async () => {
    expect(await store.claim('unknown', now, 60_000, 'req-8')).toEqual({ claimed: true });
    unavailable = true;
    try {
      await expect(store.claim('unknown', now + 60_000, 60_000, 'req-9')).rejects.toMatchObject({
        code: 'service_unavailable',
      });
    } finally {
      unavailable = false;
    }
    expect(await store.claim('unknown', now + 60_000, 60_000, 'req-9')).toEqual({ claimed: true });
  });
});
