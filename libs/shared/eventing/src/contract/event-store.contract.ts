import { waitFor } from '@cip/shared/testing';
import { randomUUID } from 'node:crypto';
import {
  EventData,
  EventIdReusedError,
  EventStore,
  RecordedEvent,
  WrongExpectedRevisionError,
} from '../event-store.port';

/**
 * The event store contract: every adapter (SQLite, EventStoreDB) passes it. Stream names are unique per
 * run, and global positions are compared relative to the head taken at the start of a test, so the suite
 * also runs against a shared server that holds other data.
 */
export interface EventStoreContractTarget {
  open(): Promise<EventStore>;
  /** Releases what `open` created (closes stores, removes files). */
  cleanup(): Promise<void>;
  /**
   * Whether the adapter offers `appendMany` (atomic multi-stream appends): the suite then holds it to its
   * all-or-nothing contract; an adapter without it must not pretend to have it.
   */
  appendMany: boolean;
  /**
   * Whether the adapter refuses an event id already stored with other content. EventStoreDB does not look at
   * the content of an event whose id it has seen: it answers as for a replay (it never duplicates either).
   */
  refusesReusedEventIds?: boolean;
}

export const testEvent = (type: string, data: Record<string, unknown> = {}): EventData => ({
  type,
  data,
  metadata: {
    eventId: randomUUID(),
    occurredAt: new Date().toISOString(),
    distributorId: 'dst-contract',
    environment: 'sandbox',
    correlationId: randomUUID(),
    schemaVersion: 1,
  },
});

const stream = (category = 'tst') => `${category}-${randomUUID()}`;

export function eventStoreContract(target: EventStoreContractTarget): void {
  let store: EventStore;

  beforeAll(async () => {
    store = await target.open();
  });
  afterAll(async () => {
    await store.close();
    await target.cleanup();
  });

  it('appends to a new stream and reads the events back in order with their data and metadata', async () => {
    const id = stream();
    const events = [
      testEvent('ThingCreated', { name: 'a', amount: 100_000_001 }),
      testEvent('ThingRenamed', { name: 'b' }),
    ];
    const result = await store.append(id, events, { expectedRevision: 'no_stream' });
    expect(result.nextRevision).toBe(1);

    const read = await store.readStream(id);
    expect(read.map((e) => [e.type, e.revision, e.streamId])).toEqual([
      ['ThingCreated', 0, id],
      ['ThingRenamed', 1, id],
    ]);
    expect(read[0].data).toEqual({ name: 'a', amount: 100_000_001 });
    expect(read[0].metadata).toEqual(events[0].metadata);
    expect(read[1].position).toBeGreaterThan(read[0].position);
    expect(read[1].position).toBe(result.position);
  });

  it('reads an absent stream as empty', async () => {
    expect(await store.readStream(stream())).toEqual([]);
  });

  it('reads a stream from a revision with a maximum count', async () => {
    const id = stream();
    await store.append(
      id,
      [1, 2, 3, 4].map((n) => testEvent('Counted', { n })),
    );
    const read = await store.readStream(id, { fromRevision: 1, maxCount: 2 });
    expect(read.map((e) => e.data.n)).toEqual([2, 3]);
  });

  it('refuses no_stream on an existing stream and reports the actual revision', async () => {
    const id = stream();
    await store.append(id, [testEvent('A'), testEvent('B')], { expectedRevision: 'no_stream' });
    const error = await store.append(id, [testEvent('C')], { expectedRevision: 'no_stream' }).catch((e) => e);
    expect(error).toBeInstanceOf(WrongExpectedRevisionError);
    expect(error.actual).toBe(1);
    expect((await store.readStream(id)).length).toBe(2);
  });

  it('accepts the exact revision and refuses a stale one', async () => {
    const id = stream();
    await store.append(id, [testEvent('A')], { expectedRevision: 'no_stream' });
    await store.append(id, [testEvent('B')], { expectedRevision: 0 });
    await expect(store.append(id, [testEvent('C')], { expectedRevision: 0 })).rejects.toBeInstanceOf(
      WrongExpectedRevisionError,
    );
    await expect(store.append(stream(), [testEvent('X')], { expectedRevision: 3 })).rejects.toBeInstanceOf(
      WrongExpectedRevisionError,
    );
    expect((await store.readStream(id)).map((e) => e.type)).toEqual(['A', 'B']);
  });

  it('honours stream_exists and any', async () => {
    const id = stream();
    await expect(
      store.append(id, [testEvent('A')], { expectedRevision: 'stream_exists' }),
    ).rejects.toBeInstanceOf(WrongExpectedRevisionError);
    await store.append(id, [testEvent('A')], { expectedRevision: 'any' });
    await store.append(id, [testEvent('B')], { expectedRevision: 'stream_exists' });
    await store.append(id, [testEvent('C')]);
    expect((await store.readStream(id)).map((e) => e.revision)).toEqual([0, 1, 2]);
  });

  it('lets exactly one of many concurrent writers with the same expected revision win', async () => {
    const id = stream();
    await store.append(id, [testEvent('Opened')], { expectedRevision: 'no_stream' });
    const attempts = await Promise.allSettled(
      Array.from({ length: 10 }, (_, i) =>
        store.append(id, [testEvent('Claimed', { i })], { expectedRevision: 0 }),
      ),
    );
    expect(attempts.filter((a) => a.status === 'fulfilled')).toHaveLength(1);
    for (const failed of attempts.filter((a) => a.status === 'rejected')) {
      expect((failed as PromiseRejectedResult).reason).toBeInstanceOf(WrongExpectedRevisionError);
    }
    expect(await store.readStream(id)).toHaveLength(2);
  });

  it('fails only the conflicting append when concurrent appends to other streams succeed', async () => {
    const taken = stream();
    await store.append(taken, [testEvent('Reserved')], { expectedRevision: 'no_stream' });
    const others = Array.from({ length: 20 }, () => stream());
    const results = await Promise.allSettled([
      store.append(taken, [testEvent('Reserved')], { expectedRevision: 'no_stream' }),
      ...others.map((id) => store.append(id, [testEvent('Reserved')], { expectedRevision: 'no_stream' })),
    ]);
    expect(results[0].status).toBe('rejected');
    expect(results.slice(1).every((r) => r.status === 'fulfilled')).toBe(true);
    for (const id of others) expect(await store.readStream(id)).toHaveLength(1);
  });

  it('reads the global log after a position in commit order', async () => {
    const head = await store.headPosition();
    const a = stream();
    const b = stream();
    await store.append(a, [testEvent('A1')]);
    await store.append(b, [testEvent('B1'), testEvent('B2')]);
    await store.append(a, [testEvent('A2')]);
    const log = (await store.readAll({ after: head, maxCount: 10_000 })).filter(
      (e) => e.streamId === a || e.streamId === b,
    );
    expect(log.map((e) => e.type)).toEqual(['A1', 'B1', 'B2', 'A2']);
    const positions = log.map((e) => e.position);
    expect([...positions].sort((x, y) => x - y)).toEqual(positions);
    expect(new Set(positions).size).toBe(positions.length);
    expect(await store.headPosition()).toBeGreaterThanOrEqual(positions[3]);

    const afterSecond = (await store.readAll({ after: positions[1], maxCount: 10_000 })).filter(
      (e) => e.streamId === a || e.streamId === b,
    );
    expect(afterSecond.map((e) => e.type)).toEqual(['B2', 'A2']);
  });

  it('takes the same events appended again (same ids) as a replay: answered as the first time, not duplicated', async () => {
    const id = stream();
    const events = [testEvent('A', { n: 1 }), testEvent('B', { n: 2 })];
    const before = await store.headPosition();
    const first = await store.append(id, events, { expectedRevision: 'no_stream' });
    const head = await store.headPosition();
    // The writer lost the answer and sends the same append again, with the expected revision it had then.
    await expect(store.append(id, events, { expectedRevision: 'no_stream' })).resolves.toEqual(first);
    await expect(store.append(id, events)).resolves.toEqual(first);
    const next = await store.append(id, [testEvent('C')], { expectedRevision: first.nextRevision });
    expect((await store.readStream(id)).map((e) => e.type)).toEqual(['A', 'B', 'C']);
    expect(next.position).toBeGreaterThan(head);
    const ids = (await store.readAll({ after: before, maxCount: 10_000 }))
      .filter((e) => e.streamId === id)
      .map((e) => e.metadata.eventId);
    expect(ids).toEqual([...events.map((e) => e.metadata.eventId), expect.any(String)]);
  });

  it('refuses an event id already used with other content, writing nothing', async () => {
    if (target.refusesReusedEventIds === false) return;
    const id = stream();
    const original = testEvent('Paid', { amount: 100 });
    await store.append(id, [original]);
    const other = stream();
    for (const [streamId, event] of [
      [id, { ...original, data: { amount: 999 } }],
      [id, { ...original, type: 'Refunded' }],
      [other, original],
    ] as const) {
      await expect(store.append(streamId, [event])).rejects.toBeInstanceOf(EventIdReusedError);
    }
    // Part of an append stored before, the rest new: not a replay either.
    await expect(store.append(id, [original, testEvent('Paid', { amount: 1 })])).rejects.toBeInstanceOf(
      EventIdReusedError,
    );
    expect((await store.readStream(id)).map((e) => e.data)).toEqual([{ amount: 100 }]);
    expect(await store.readStream(other)).toEqual([]);
  });

  it('subscribes from a position: catches up, then receives live appends in order', async () => {
    const id = stream();
    await store.append(id, [testEvent('Before1'), testEvent('Before2')]);
    const [first] = await store.readStream(id);
    const seen: RecordedEvent[] = [];
    const subscription = store.subscribeToAll({
      after: first.position,
      onEvents: async (events) => {
        seen.push(...events.filter((e) => e.streamId === id));
      },
    });
    try {
      await waitFor(() => seen.length >= 1, { what: 'the subscription to deliver the stored events' });
      await store.append(id, [testEvent('Live1')]);
      await store.append(id, [testEvent('Live2')]);
      await waitFor(() => seen.length >= 3, { what: 'the subscription to deliver the live events' });
      expect(seen.map((e) => e.type)).toEqual(['Before2', 'Live1', 'Live2']);
      expect(subscription.position).toBeGreaterThanOrEqual(seen[1].position);
    } finally {
      await subscription.stop();
    }
  });

  it('keeps appending after a stopped subscription and delivers nothing more to it', async () => {
    const id = stream();
    const seen: RecordedEvent[] = [];
    const subscription = store.subscribeToAll({
      after: await store.headPosition(),
      onEvents: async (events) => {
        seen.push(...events.filter((e) => e.streamId === id));
      },
    });
    await store.append(id, [testEvent('One')]);
    await waitFor(() => seen.length === 1, { what: 'the subscription to deliver the first append' });
    await subscription.stop();
    await store.append(id, [testEvent('Two')]);
    await new Promise((r) => setTimeout(r, 50));
    expect(seen.map((e) => e.type)).toEqual(['One']);
  });

  describe('appendMany (atomic multi-stream append)', () => {
    if (!target.appendMany) {
      it('is not offered: the store has no multi-stream transaction', () => {
        expect(store.appendMany).toBeUndefined();
      });
      return;
    }
    const appendMany: NonNullable<EventStore['appendMany']> = (appends) => {
      if (!store.appendMany) throw new Error('the store does not offer appendMany');
      return store.appendMany(appends);
    };

    it('appends to every stream, each checked against its own expected revision, with one result per part', async () => {
      const reservation = stream('uniq');
      const entity = stream();
      await store.append(entity, [testEvent('Opened')], { expectedRevision: 'no_stream' });
      const results = await appendMany([
        { streamId: reservation, events: [testEvent('Reserved')], expectedRevision: 'no_stream' },
        { streamId: entity, events: [testEvent('Renamed'), testEvent('Moved')], expectedRevision: 0 },
      ]);
      expect(results.map((r) => r.nextRevision)).toEqual([0, 2]);
      const [reserved] = await store.readStream(reservation);
      const written = await store.readStream(entity);
      expect(written.map((e) => e.type)).toEqual(['Opened', 'Renamed', 'Moved']);
      expect(results[0].position).toBe(reserved.position);
      expect(results[1].position).toBe(written[2].position);
      expect(written[1].position).toBeGreaterThan(reserved.position);
    });

    it('writes nothing when any part conflicts, and reports that part', async () => {
      const taken = stream('uniq');
      const entity = stream();
      await store.append(taken, [testEvent('Reserved')], { expectedRevision: 'no_stream' });
      const error = await appendMany([
        { streamId: entity, events: [testEvent('Created')], expectedRevision: 'no_stream' },
        { streamId: taken, events: [testEvent('Reserved')], expectedRevision: 'no_stream' },
      ]).catch((e) => e);
      expect(error).toBeInstanceOf(WrongExpectedRevisionError);
      expect(error.streamId).toBe(taken);
      expect(error.actual).toBe(0);
      expect(await store.readStream(entity)).toEqual([]);
      expect(await store.readStream(taken)).toHaveLength(1);
    });

    it('lets exactly one of many concurrent multi-stream appends on one stream win, the losers writing nothing', async () => {
      const reservation = stream('uniq');
      const entities = Array.from({ length: 10 }, () => stream());
      const attempts = await Promise.allSettled(
        entities.map((entity) =>
          appendMany([
            {
              streamId: reservation,
              events: [testEvent('Reserved', { entity })],
              expectedRevision: 'no_stream',
            },
            { streamId: entity, events: [testEvent('Created')], expectedRevision: 'no_stream' },
          ]),
        ),
      );
      const won = attempts.findIndex((a) => a.status === 'fulfilled');
      expect(attempts.filter((a) => a.status === 'fulfilled')).toHaveLength(1);
      for (const failed of attempts.filter((a) => a.status === 'rejected')) {
        expect((failed as PromiseRejectedResult).reason).toBeInstanceOf(WrongExpectedRevisionError);
      }
      expect((await store.readStream(reservation)).map((e) => e.data.entity)).toEqual([entities[won]]);
      for (const [i, entity] of entities.entries()) {
        expect(await store.readStream(entity)).toHaveLength(i === won ? 1 : 0);
      }
    });

    it('checks a part with no events against its expected revision and writes nothing for it', async () => {
      const legacy = stream('uniq');
      const entity = stream();
      const [checked, written] = await appendMany([
        { streamId: legacy, events: [], expectedRevision: 'no_stream' },
        { streamId: entity, events: [testEvent('Created')], expectedRevision: 'no_stream' },
      ]);
      expect(checked.nextRevision).toBe(-1);
      expect(written.nextRevision).toBe(0);
      expect(await store.readStream(legacy)).toEqual([]);

      await store.append(legacy, [testEvent('Reserved')], { expectedRevision: 'no_stream' });
      const other = stream();
      const error = await appendMany([
        { streamId: legacy, events: [], expectedRevision: 'no_stream' },
        { streamId: other, events: [testEvent('Created')], expectedRevision: 'no_stream' },
      ]).catch((e) => e);
      expect(error).toBeInstanceOf(WrongExpectedRevisionError);
      expect(error.streamId).toBe(legacy);
      expect(await store.readStream(other)).toEqual([]);
      expect(await store.readStream(legacy)).toHaveLength(1);
    });

    it('refuses an event id given in two parts, writing nothing', async () => {
      const [a, b] = [stream(), stream()];
      const event = testEvent('Twice');
      await expect(
        appendMany([
          { streamId: a, events: [event] },
          { streamId: b, events: [event] },
        ]),
      ).rejects.toBeInstanceOf(EventIdReusedError);
      expect(await store.readStream(a)).toEqual([]);
      expect(await store.readStream(b)).toEqual([]);
    });

    it('refuses a stream named twice, writing nothing', async () => {
      const id = stream();
      await expect(
        appendMany([
          { streamId: id, events: [testEvent('A')] },
          { streamId: id, events: [testEvent('B')] },
        ]),
      ).rejects.toThrow(/once/);
      expect(await store.readStream(id)).toEqual([]);
    });
  });
}
