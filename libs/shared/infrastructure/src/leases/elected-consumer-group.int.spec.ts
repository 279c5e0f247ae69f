import type { Leases } from '@cip/shared/read-store';
import { createLogger } from '@cip/shared/runtime';
import { waitFor, within } from '@cip/shared/testing';
import { randomUUID } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ConsumerHost } from '../consumers';
import { openEmbeddedInfrastructure } from '../embedded-infrastructure';
import type { Infrastructure } from '../infrastructure';
import { ElectedRole } from './elected-role';

const TTL_MS = 600;
const GROUP = 'ticks.dispatcher';

/**
 * Two replicas of a service on one DATA_DIR (the embedded driver's split topology), each with its own stores
 * and consumer host, running an elective group only while elected, as the webhooks service runs its dispatcher.
 */
describe('an elected consumer group across two replicas', () => {
  const dataDir = mkdtempSync(join(tmpdir(), 'cip-elected-group-'));
  const handled: Record<string, number[]> = { a: [], b: [] };
  const replicas: { infrastructure: Infrastructure; host: ConsumerHost; role: ElectedRole; kill(): void }[] =
    [];

  const replica = (name: string) => {
    const infrastructure = openEmbeddedInfrastructure({
      dataDir,
      logger: createLogger('silent'),
      pollIntervalMs: 20,
    });
    const host = new ConsumerHost();
    host.register({
      group: GROUP,
      topics: ['tck'],
      scopes: ['sandbox'],
      elective: true,
      handle: async (_ports, messages) => {
        handled[name].push(...messages.map((m) => (m.event.data as { n: number }).n));
      },
    });
    let cut = false;
    const never = new Promise<never>(() => undefined);
    const leases: Leases = {
      acquire: (lease, holder, ttl) => (cut ? never : infrastructure.leases.acquire(lease, holder, ttl)),
      release: (lease, holder) => (cut ? never : infrastructure.leases.release(lease, holder)),
    };
    const role = new ElectedRole({
      leases,
      name: GROUP,
      holder: name,
      ttlMs: TTL_MS,
      onElected: () => host.startGroup(GROUP),
      onDeposed: () => host.stopGroup(GROUP),
    });
    const entry = { infrastructure, host, role, kill: () => (cut = true) };
    replicas.push(entry);
    return entry;
  };

  afterAll(async () => {
    for (const { host, infrastructure } of replicas) {
      await host.stop();
      await infrastructure.close();
    }
    rmSync(dataDir, { recursive: true, force: true });
  });

  it('only the leader consumes; after it is cut off, the standby takes over from the committed offset', async () => {
    const a = replica('a');
    const b = replica('b');
    for (const { host, infrastructure } of [a, b]) await host.start(infrastructure);
    await a.role.start();
    await b.role.start();
    expect([a.role.state, b.role.state]).toEqual(['leader', 'standby']);
    const append = (n: number) =>
      a.infrastructure.scope('sandbox').eventStore.append(`tck-${n}`, [
        {
          type: 'TickRecorded',
          data: { n },
          metadata: { eventId: randomUUID(), occurredAt: new Date().toISOString(), schemaVersion: 1 },
        },
      ]);
    for (const n of [1, 2, 3]) await append(n);
    await within(a.host.drain('sandbox', [GROUP], 10_000), { what: 'the leader drained 1-3' });

    a.kill();
    await waitFor(() => b.role.state === 'leader', { what: 'the standby elected', timeoutMs: TTL_MS * 5 });
    // The cut-off leader stopped its group on its own deadline, before the standby could be elected.
    expect(a.role.state).toBe('standby');
    expect(a.host.runs('sandbox', GROUP)).toBe(false);
    for (const n of [4, 5]) await append(n);
    await within(b.host.drain('sandbox', [GROUP], 10_000), { what: 'the new leader drained' });
    expect(handled.a).toEqual([1, 2, 3]);
    // At least once: nothing lost; what the first one committed is not read again here.
    expect(handled.b).toEqual([4, 5]);
    await b.role.stop();
  });
});
