import { ConsumerHost } from '@cip/shared/infrastructure';
import { waitFor, WebhookReceiver } from '@cip/shared/testing';
import { DeliveryEngine } from '@cip/webhooks/service';
import { Harness, newUserBody } from './platform-harness';

const json = { 'content-type': 'application/json' };

interface Sentinel {
  key: string;
  receiver: WebhookReceiver;
}

/**
 * `settle(key)` waits until the webhook dispatcher has read the log and every delivery of `key`'s
 * subscriptions that can go now has been answered, on both topologies. One process: its consumer host and
 * delivery engine say so. Split (no handle on another process): an Event of a sentinel distributor, appended
 * after everything the test did, has reached the sentinel's receiver (the dispatcher reads the log in order:
 * it has made the deliveries of every earlier Event), and no delivery of `key`'s subscriptions is due (their
 * delivery logs over /v1). The sentinel (a distributor of its own and its receiver) is made on the first
 * split settle; `stop()` (afterAll, before `h.close()`) stops its receiver. On split, `settle` resolves with
 * the sentinel's Event's target (the user it created: a stream of the sandbox log), undefined on one process.
 */
export function webhookSettler(harness: () => Harness): {
  settle(key: string): Promise<string | undefined>;
  stop(): Promise<void>;
} {
  let sentinel: Promise<Sentinel> | undefined;
  const newSentinel = async (h: Harness): Promise<Sentinel> => {
    const receiver = await new WebhookReceiver().start();
    const other = await h.newDistributor();
    await h.http
      .post('/v1/webhook-subscriptions')
      .set({ 'x-api-key': other.sandboxKey, ...json })
      .send({ url: receiver.url })
      .expect(201);
    return { key: other.sandboxKey, receiver };
  };
  return {
    async settle(key) {
      const h = harness();
      if (h.topology === 'one-process') {
        // Twice: a consumer's reaction (an Event it appends) is read by the second drain.
        await h.platform.app.get(ConsumerHost).drain('sandbox');
        await h.platform.app.get(ConsumerHost).drain('sandbox');
        await h.platform.app.get(DeliveryEngine).idle();
        return undefined;
      }
      const { key: sentinelKey, receiver } = await (sentinel ??= newSentinel(h));
      const marker = await h.http
        .post('/v1/users')
        .set({ 'x-api-key': sentinelKey, ...json })
        .send(newUserBody())
        .expect(201);
      await waitFor(
        () => receiver.acknowledged('user.created').some((d) => d.body.eventTargetId === marker.body.id),
        { what: "the dispatcher to reach the sentinel's Event" },
      );
      const api = { 'x-api-key': key };
      await waitFor(
        async () => {
          const subscriptions = (await h.http.get('/v1/webhook-subscriptions').query({ limit: 100 }).set(api))
            .body.items as { id: string }[];
          for (const { id } of subscriptions) {
            const pending = await h.http
              .get(`/v1/webhook-subscriptions/${id}/deliveries`)
              .query({ status: 'pending', limit: 100 })
              .set(api);
            const due = (pending.body.items as { nextAttemptAt: string | null }[]).some(
              (d) => d.nextAttemptAt === null || Date.parse(d.nextAttemptAt) <= Date.now(),
            );
            if (due) return false;
          }
          return true;
        },
        { what: 'every due delivery of the subscriptions answered' },
      );
      return marker.body.id as string;
    },
    async stop() {
      await (await sentinel)?.receiver.stop();
    },
  };
}
