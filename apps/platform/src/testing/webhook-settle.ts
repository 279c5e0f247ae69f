import { ConsumerHost } from '@cip/shared/infrastructure';
import { waitFor, WebhookReceiver } from '@cip/shared/testing';
import { DeliveryEngine, DISPATCHER_GROUP } from '@cip/webhooks/service';
import { Harness, newUserBody } from './platform-harness';
import { waitForGroupCaughtUp } from './split-engines';

const json = { 'content-type': 'application/json' };

/**
 * A distributor of its own, subscribed to a receiver of its own. `reach(h)` creates a user of it and resolves,
 * with the user's id, once that user's `user.created` reached the receiver: the dispatcher reads the log in
 * order, so by then it has made the deliveries of every Event appended before the call. A signal for the split
 * topology, where the test has no handle on the webhooks process. Made on the first `reach`; `stop()` stops the
 * receiver (afterAll, before the harness closes).
 */
export class DispatcherSentinel {
  private made?: Promise<{ key: string; receiver: WebhookReceiver }>;

  async reach(h: Harness): Promise<string> {
    const { key, receiver } = await (this.made ??= (async () => {
      const receiver = await new WebhookReceiver().start();
      const { sandboxKey } = await h.newDistributor();
      await h.http
        .post('/v1/webhook-subscriptions')
        .set({ 'x-api-key': sandboxKey, ...json })
        .send({ url: receiver.url })
        .expect(201);
      return { key: sandboxKey, receiver };
    })());
    const marker = await h.http
      .post('/v1/users')
      .set({ 'x-api-key': key, ...json })
      .send(newUserBody())
      .expect(201);
    await waitFor(
      () => receiver.acknowledged('user.created').some((d) => d.body.eventTargetId === marker.body.id),
      { what: "the dispatcher to reach the sentinel's Event" },
    );
    return marker.body.id as string;
  }

  async stop(): Promise<void> {
    await (await this.made)?.receiver.stop();
  }
}

/**
 * `settle(key)` waits until the webhook dispatcher has read the log and every delivery of `key`'s
 * subscriptions that can go now (at the harness's clock) has been answered, on both topologies. One process:
 * its consumer host and delivery engine say so. Split: a DispatcherSentinel's Event, appended after everything
 * the test did, was delivered, and no delivery of `key`'s subscriptions is due (their delivery logs over /v1).
 * On split, `settle` resolves with the sentinel's Event's target (the user it created: a stream of the sandbox
 * log), undefined on one process. `stop()` (afterAll, before `h.close()`) stops the sentinel's receiver.
 */
export function webhookSettler(harness: () => Harness): {
  settle(key: string): Promise<string | undefined>;
  stop(): Promise<void>;
} {
  const sentinel = new DispatcherSentinel();
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
      const marker = await sentinel.reach(h);
      // On Kafka the sentinel's Event was read in its partition's order only: the others are waited for here.
      await waitForGroupCaughtUp(h.dataDir, DISPATCHER_GROUP);
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
              (d) => d.nextAttemptAt === null || Date.parse(d.nextAttemptAt) <= h.now().getTime(),
            );
            if (due) return false;
          }
          return true;
        },
        { what: 'every due delivery of the subscriptions answered' },
      );
      return marker;
    },
    stop: () => sentinel.stop(),
  };
}
