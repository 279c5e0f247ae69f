import type { RecordedEvent } from '../event-store.port';
import { LogSubscription } from './log-subscription';

const COALESCE_MS = 10;

/** A log in memory, a subscription over it with COALESCE_MS, and the batches it handed over. */
function subscribedLog() {
  const log: RecordedEvent[] = [];
  const batches: number[][] = [];
  const append = (count = 1) => {
    for (let i = 0; i < count; i++) {
      const position = log.length + 1;
      log.push({
        streamId: `thg-${position}`,
        revision: 0,
        position,
        type: 'ThingHappened',
        data: {},
        metadata: { eventId: `evt-${position}`, occurredAt: '2026-01-01T00:00:00.000Z' },
      } as RecordedEvent);
    }
    return log.length;
  };
  const subscription = new LogSubscription(
    (after, max) => log.filter((e) => e.position > after).slice(0, max),
    {
      after: 0,
      onEvents: async (events) => {
        batches.push(events.map((e) => e.position));
      },
    },
    () => undefined,
    COALESCE_MS,
  );
  return { subscription, batches, append };
}

/** Lets the subscription's loop run as far as it can without time passing. */
const settle = async () => {
  for (let i = 0; i < 10; i++) await Promise.resolve();
};

describe('LogSubscription: coalescing under load, none for an event after a quiet spell', () => {
  beforeEach(() => jest.useFakeTimers());
  afterEach(() => jest.useRealTimers());

  it('hands an isolated event over at once, and gathers the commits of a busy log into one batch', async () => {
    const { subscription, batches, append } = subscribedLog();
    subscription.start();
    await settle();
    // The log has been quiet for longer than the coalescing window: the challenge's event goes at once.
    jest.advanceTimersByTime(COALESCE_MS * 5);
    subscription.wake(append());
    await settle();
    expect(batches).toEqual([[1]]);

    // Right after that batch, commits arrive one by one: they wait the window and go together.
    subscription.wake(append());
    await settle();
    subscription.wake(append());
    await settle();
    expect(batches).toEqual([[1]]);
    jest.advanceTimersByTime(COALESCE_MS);
    await settle();
    expect(batches).toEqual([[1], [2, 3]]);
    await subscription.stop();
  });

  it('gathers a wake-up that brings many events even after a quiet spell (a saturated loop)', async () => {
    const { subscription, batches, append } = subscribedLog();
    subscription.start();
    await settle();
    jest.advanceTimersByTime(COALESCE_MS * 5);
    subscription.wake(append(20));
    await settle();
    expect(batches).toEqual([]);
    subscription.wake(append(5));
    jest.advanceTimersByTime(COALESCE_MS);
    await settle();
    expect(batches).toEqual([Array.from({ length: 25 }, (_, i) => i + 1)]);
    await subscription.stop();
  });
});
