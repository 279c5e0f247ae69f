import { Infrastructure, openEmbeddedInfrastructure } from '@cip/shared/infrastructure';
import { systemClock } from '@cip/shared/runtime';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { DistributorDirectory } from './distributor-directory';
import { DEFAULT_DISTRIBUTOR_ID, DistributorsService } from './distributors.service';

/** A gateway replica's control plane: its own infrastructure (own SQLite connections) over the shared data dir. */
function replica(dataDir: string): { infrastructure: Infrastructure; service: DistributorsService } {
  const infrastructure = openEmbeddedInfrastructure({ dataDir });
  const store = infrastructure.scope('control').eventStore;
  return {
    infrastructure,
    service: new DistributorsService(store, new DistributorDirectory(store), systemClock),
  };
}

describe('Control-plane bootstrap with several replicas starting at once', () => {
  let dataDir: string;
  let replicas: ReturnType<typeof replica>[] = [];

  beforeEach(() => {
    dataDir = mkdtempSync(join(tmpdir(), 'cip-bootstrap-'));
    replicas = Array.from({ length: 4 }, () => replica(dataDir));
  });

  afterEach(async () => {
    for (const { infrastructure } of replicas) await infrastructure.close();
    rmSync(dataDir, { recursive: true, force: true });
  });

  it('creates exactly one default distributor and shows its first sandbox key once', async () => {
    const results = await Promise.all(replicas.map(({ service }) => service.bootstrap({})));

    expect(new Set(results.map((r) => r.distributor.distributorId))).toEqual(
      new Set([DEFAULT_DISTRIBUTOR_ID]),
    );
    expect(results.filter((r) => r.firstSandboxKey !== null)).toHaveLength(1);
    for (const { service } of replicas) {
      await service.directory.catchUp();
      expect(service.directory.list().filter((d) => d.isDefault)).toHaveLength(1);
      // The key shown once works in every replica.
      const firstKey = results.find((r) => r.firstSandboxKey)!.firstSandboxKey!;
      expect(service.directory.list()[0].keys.map((k) => k.keyId)).toEqual([firstKey.keyId]);
    }
  });

  it('registers the deployment bootstrap keys once, on the one default distributor', async () => {
    const keys = {
      sandboxKey: `sk_sandbox_${'a'.repeat(32)}`,
      productionKey: `sk_live_${'b'.repeat(32)}`,
    };
    const results = await Promise.all(replicas.map(({ service }) => service.bootstrap(keys)));

    expect(new Set(results.map((r) => r.distributor.distributorId)).size).toBe(1);
    expect(results.every((r) => r.firstSandboxKey === null)).toBe(true);
    // Each key is created by one replica; the others find it registered.
    for (const environment of ['sandbox', 'production'] as const) {
      const outcomes = results.map((r) => r.registered.find((k) => k.environment === environment)!);
      expect(outcomes.filter((k) => k.created)).toHaveLength(1);
      expect(new Set(outcomes.map((k) => k.keyId)).size).toBe(1);
    }
    const distributor = replicas[0].service.directory.get(results[0].distributor.distributorId)!;
    expect(distributor.keys).toHaveLength(2);

    // A later start (a replica restarting) changes nothing.
    const again = await replicas[1].service.bootstrap(keys);
    expect(again.distributor.distributorId).toBe(distributor.distributorId);
    expect(again.registered.every((k) => !k.created)).toBe(true);
  });
});
