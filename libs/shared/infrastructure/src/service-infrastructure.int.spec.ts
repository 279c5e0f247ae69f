import { createLogger, PlatformMetrics } from '@cip/shared/runtime';
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { readStoreDriver, serviceInfrastructure } from './service-infrastructure';

describe('serviceInfrastructure', () => {
  const logger = createLogger('silent');

  it('reads STORE_DRIVER: distributed by default, a clear error for anything else', () => {
    expect(readStoreDriver({})).toBe('distributed');
    expect(readStoreDriver({ STORE_DRIVER: 'embedded' })).toBe('embedded');
    expect(() => readStoreDriver({ STORE_DRIVER: 'sqlite' })).toThrow(
      'STORE_DRIVER: must be one of embedded, distributed (got "sqlite")',
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
});
