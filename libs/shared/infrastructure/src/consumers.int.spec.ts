import { createLogger } from '@cip/shared/runtime';
import { within } from '@cip/shared/testing';
import { mkdtempSync, rmSync } from 'node:fs';
import { randomUUID } from 'node:crypto';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ConsumerHost } from './consumers';
import { openEmbeddedInfrastructure } from './embedded-infrastructure';
import type { Infrastructure } from './infrastructure';

const event = (n: number) => ({
  type: 'TickRecorded',
  data: { n },
  metadata: { eventId: randomUUID(), occurredAt: new Date().toISOString(), schemaVersion: 1 },
});

describe('ConsumerHost: an elective group (started and stopped after boot)', () => {
  const dataDir = mkdtempSync(join(tmpdir(), 'cip-elective-'));
  let infrastructure: Infrastructure;
  const host = new ConsumerHost();
  const seen: number[] = [];

  beforeAll(() => {
    infrastructure = openEmbeddedInfrastructure({
      dataDir,
      logger: createLogger('silent'),
      pollIntervalMs: 20,
    });
    host.register({
      group: 'ticks.elected',
      topics: ['tck'],
      scopes: ['sandbox'],
      elective: true,
      handle: async (_ports, messages) => {
        seen.push(...messages.map((m) => (m.event.data as { n: number }).n));
      },
    });
  });
  afterAll(async () => {
    await host.stop();
    await infrastructure.close();
    rmSync(dataDir, { recursive: true, force: true });
  });

  const append = (n: number) => infrastructure.scope('sandbox').eventStore.append(`tck-${n}`, [event(n)]);
  const drained = () =>
    within(host.drain('sandbox', ['ticks.elected'], 5_000), { what: 'the elected group drained' });

  it('does not start with the others; runs from startGroup, stops with stopGroup, resumes from its offset', async () => {
    await host.start(infrastructure);
    await append(1);
    expect(host.runs('sandbox', 'ticks.elected')).toBe(false);
    expect(host.health()).toEqual([]);

    await host.startGroup('ticks.elected');
    expect(host.runs('sandbox', 'ticks.elected')).toBe(true);
    await append(2);
    await drained();
    expect(seen).toEqual([1, 2]);

    await host.stopGroup('ticks.elected');
    expect(host.runs('sandbox', 'ticks.elected')).toBe(false);
    expect(host.health()).toEqual([]);
    await append(3);

    // Started twice at once (an election racing a restart): one consumer, from the committed offset.
    await Promise.all([host.startGroup('ticks.elected'), host.startGroup('ticks.elected')]);
    expect(host.health()).toHaveLength(1);
    await drained();
    expect(seen).toEqual([1, 2, 3]);
  });

  it('refuses to start or stop a group that is not elective', async () => {
    host.register({
      group: 'ticks.always',
      topics: ['tck'],
      scopes: ['sandbox'],
      handle: async () => undefined,
    });
    await expect(host.startGroup('ticks.always')).rejects.toThrow('not registered as elective');
    await expect(host.stopGroup('ticks.missing')).rejects.toThrow('not registered as elective');
  });
});
