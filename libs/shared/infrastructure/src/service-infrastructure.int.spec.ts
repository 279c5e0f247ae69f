import { newPersonalDataMasterKey } from '@cip/shared/eventing';
import { createLogger, PlatformMetrics, timeOrderedUuid } from '@cip/shared/runtime';
import { describeWhenConfigured, freshDatabase } from '@cip/shared/testing';
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { readStoreDriver, serviceInfrastructure } from './service-infrastructure';

describe('serviceInfrastructure', () => {
  const logger = createLogger('silent');

  it('reads STORE_DRIVER: distributed by default, a clear error for anything else', () => {
    expect(readStoreDriver({})).toBe('distributed');
    expect(readStoreDriver({ STORE_DRIVER: 'embedded' })).toBe('embedded');
    expect(readStoreDriver({ STORE_DRIVER: 'postgres' })).toBe('postgres');
    expect(() => readStoreDriver({ STORE_DRIVER: 'sqlite' })).toThrow(
      'STORE_DRIVER: must be one of embedded, postgres, distributed (got "sqlite")',
    );
  });

  it('opens the SQLite files under DATA_DIR with the embedded driver', async () => {
    const dataDir = mkdtempSync(join(tmpdir(), 'cip-service-infrastructure-'));
    try {
      const options = serviceInfrastructure('users', {
        contexts: [],
        runConsumers: false,
        logger,
        env: { STORE_DRIVER: 'embedded', DATA_DIR: dataDir },
      });
      const infrastructure = await options.open({ logger, metrics: new PlatformMetrics(false) });
      expect(infrastructure.driver).toBe('embedded');
      expect(existsSync(join(dataDir, 'sandbox.sqlite'))).toBe(true);
      await infrastructure.close();
    } finally {
      rmSync(dataDir, { recursive: true, force: true });
    }
  });

  it('names the missing server variable with the distributed driver', async () => {
    const options = serviceInfrastructure('users', { contexts: [], runConsumers: true, logger, env: {} });
    await expect(options.open({ logger, metrics: new PlatformMetrics(false) })).rejects.toThrow(
      'EVENTSTORE_URL must be set',
    );
  });

  it('names every missing or wrong variable of the postgres driver at once', async () => {
    const options = serviceInfrastructure('users', {
      contexts: [],
      runConsumers: true,
      logger,
      env: { STORE_DRIVER: 'postgres', DATABASE_POOL_SIZE: 'two' },
    });
    const opening = options.open({ logger, metrics: new PlatformMetrics(false) });
    await expect(opening).rejects.toThrow('DATABASE_URL: must be set (STORE_DRIVER=postgres)');
    await expect(opening).rejects.toThrow('KAFKA_BROKERS: must be set (STORE_DRIVER=postgres)');
    await expect(opening).rejects.toThrow('PERSONAL_DATA_MASTER_KEY: must be set (STORE_DRIVER=postgres)');
    await expect(opening).rejects.toThrow('DATABASE_POOL_SIZE: must be a positive integer (got "two")');
  });
});

describeWhenConfigured('DATABASE_URL', 'serviceInfrastructure on the postgres driver', (serverUrl) => {
  const logger = createLogger('silent');

  it("opens a schema per scope, one log each, and a scope never reads another scope's events", async () => {
    const database = await freshDatabase(serverUrl, 'cip_service_infra');
    const env = {
      STORE_DRIVER: 'postgres',
      DATABASE_URL: database.url,
      // Not reached: nothing here publishes or consumes (the buses connect on first use).
      KAFKA_BROKERS: '127.0.0.1:9',
      PERSONAL_DATA_MASTER_KEY: newPersonalDataMasterKey(),
    };
    const options = serviceInfrastructure('users', { contexts: [], runConsumers: false, logger, env });
    const infrastructure = await options.open({ logger, metrics: new PlatformMetrics(false) });
    try {
      expect(infrastructure.driver).toBe('postgres');
      const event = (type: string) => ({
        type,
        data: {},
        metadata: { eventId: timeOrderedUuid(), occurredAt: new Date().toISOString(), schemaVersion: 1 },
      });
      await infrastructure.scope('sandbox').eventStore.append('usr-1', [event('UserCreated')]);
      await infrastructure
        .scope('production')
        .eventStore.append('usr-1', [event('UserCreated'), event('UserActivated')]);
      expect(await infrastructure.scope('sandbox').eventStore.readStream('usr-1')).toHaveLength(1);
      expect(await infrastructure.scope('production').eventStore.readStream('usr-1')).toHaveLength(2);
      expect(await infrastructure.scope('control').eventStore.readStream('usr-1')).toEqual([]);
      // Each scope's log has its own positions: two logs, not one shared.
      expect(await infrastructure.scope('sandbox').storedEventStore.headPosition()).toBe(1);
      expect(await infrastructure.scope('production').storedEventStore.headPosition()).toBe(2);
      // The leases of the deployment (the elected dispatcher) answer.
      expect(await infrastructure.leases.acquire('test', 'me', 1_000)).toMatchObject({ fencingToken: 1 });
    } finally {
      await infrastructure.close();
      await database.drop();
    }
  });
});
