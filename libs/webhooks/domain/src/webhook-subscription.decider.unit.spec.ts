import { deciderSpec } from '@cip/shared/testing';
import type { WebhookSubscriptionCommand } from './webhook-subscription.commands';
import { FAILING_GRACE_MS } from './delivery-outcome.policy';
import { webhookSubscriptionDecider } from './webhook-subscription.decider';
import type { WebhookSubscriptionEvent } from './webhook-subscription.events';

const spec = deciderSpec(webhookSubscriptionDecider);

const ID = 'whs-6f1c2b9e';
const URL_A = 'https://hooks.example.com/a';
const URL_B = 'https://hooks.example.com/b';
const T0 = '2026-01-01T00:00:00.000Z';
const T1 = '2026-01-01T00:00:01.000Z';
const at = (ms: number) => new Date(Date.parse(T0) + ms).toISOString();

const created: WebhookSubscriptionEvent = {
  type: 'WebhookSubscriptionCreated',
  data: { subscriptionId: ID, distributorId: 'dst-1', url: URL_A, sealedSecret: 'sealed', createdAt: T0 },
};
const verified = (url = URL_A, when = T1): WebhookSubscriptionEvent => ({
  type: 'WebhookSubscriptionVerified',
  data: { subscriptionId: ID, url, at: when },
});
const failing = (since: string): WebhookSubscriptionEvent => ({
  type: 'WebhookDeliveriesFailing',
  data: { subscriptionId: ID, since },
});
const disabled = (reason: 'gone' | 'failing', when = T1): WebhookSubscriptionEvent => ({
  type: 'WebhookSubscriptionDisabled',
  data: { subscriptionId: ID, reason, at: when },
});
const deleted: WebhookSubscriptionEvent = {
  type: 'WebhookSubscriptionDeleted',
  data: { subscriptionId: ID, url: URL_A, at: T1 },
};

const verification = (verified: boolean, url = URL_A, reason?: string): WebhookSubscriptionCommand => ({
  type: 'RecordVerification',
  data: { url, verified, reason, now: T1 },
});
const outcome = (succeeded: boolean, now: string): WebhookSubscriptionCommand => ({
  type: 'RecordDeliveryOutcome',
  data: { succeeded, now },
});

const fold = (events: WebhookSubscriptionEvent[]) =>
  events.reduce(webhookSubscriptionDecider.evolve, webhookSubscriptionDecider.initialState());

describe('webhook subscription decider: creation and verification', () => {
  it('creates an unverified subscription that keeps only the sealed secret', () => {
    spec
      .given([])
      .when({
        type: 'CreateWebhookSubscription',
        data: { subscriptionId: ID, distributorId: 'dst-1', url: URL_A, sealedSecret: 'sealed', now: T0 },
      })
      .then([created]);
    expect(fold([created])).toMatchObject({ status: 'unverified', url: URL_A, verifiedAt: null });
  });

  it('activates on a successful handshake, and a second one changes nothing', () => {
    spec.given([created]).when(verification(true)).then([verified()]);
    spec.given([created, verified()]).when(verification(true)).thenNothing();
    expect(fold([created, verified()])).toMatchObject({ status: 'active', verifiedAt: T1 });
  });

  it('records a failed handshake without activating', () => {
    spec
      .given([created])
      .when(verification(false, URL_A, 'challenge not echoed'))
      .then([
        {
          type: 'WebhookSubscriptionVerificationFailed',
          data: { subscriptionId: ID, url: URL_A, reason: 'challenge not echoed', at: T1 },
        },
      ]);
  });

  it('ignores the outcome of a handshake run on a url that has since changed', () => {
    const changed: WebhookSubscriptionEvent = {
      type: 'WebhookSubscriptionUrlChanged',
      data: { subscriptionId: ID, url: URL_B, previousUrl: URL_A, at: T1 },
    };
    spec.given([created, changed]).when(verification(true, URL_A)).thenNothing();
  });

  it('answers not found for anything but creation once deleted', () => {
    spec.given([created, deleted]).when(verification(true)).thenThrows('not_found');
    spec
      .given([created, deleted])
      .when({ type: 'DeleteWebhookSubscription', data: { now: T1 } })
      .thenThrows('not_found');
    spec
      .given([])
      .when({ type: 'ChangeWebhookUrl', data: { url: URL_B, now: T1 } })
      .thenThrows('not_found');
  });
});

describe('webhook subscription decider: url changes', () => {
  it('needs verification again after the url changes', () => {
    const events = [created, verified()];
    const [changed] = webhookSubscriptionDecider.decide(
      { type: 'ChangeWebhookUrl', data: { url: URL_B, now: T1 } },
      fold(events),
    );
    expect(changed).toEqual({
      type: 'WebhookSubscriptionUrlChanged',
      data: { subscriptionId: ID, url: URL_B, previousUrl: URL_A, at: T1 },
    });
    expect(fold([...events, changed])).toMatchObject({ status: 'unverified', url: URL_B, verifiedAt: null });
  });

  it('changes nothing when the url is the same', () => {
    spec
      .given([created, verified()])
      .when({ type: 'ChangeWebhookUrl', data: { url: URL_A, now: T1 } })
      .thenNothing();
  });
});

describe('webhook subscription decider: failing deliveries', () => {
  const active = [created, verified(URL_A, T0)];

  it('starts the grace period at the first failure and ends it at the next success', () => {
    spec
      .given(active)
      .when(outcome(false, at(1000)))
      .then([failing(at(1000))]);
    spec
      .given([...active, failing(at(1000))])
      .when(outcome(true, at(2000)))
      .then([{ type: 'WebhookDeliveriesRecovered', data: { subscriptionId: ID, at: at(2000) } }]);
    spec
      .given(active)
      .when(outcome(true, at(2000)))
      .thenNothing();
  });

  it('keeps the subscription while it has failed for less than 3 days', () => {
    spec
      .given([...active, failing(at(0))])
      .when(outcome(false, at(FAILING_GRACE_MS - 1)))
      .thenNothing();
  });

  it('disables a subscription that has kept failing for 3 days', () => {
    spec
      .given([...active, failing(at(0))])
      .when(outcome(false, at(FAILING_GRACE_MS)))
      .then([disabled('failing', at(FAILING_GRACE_MS))]);
  });

  it('a recovery resets the grace period', () => {
    const recovered: WebhookSubscriptionEvent = {
      type: 'WebhookDeliveriesRecovered',
      data: { subscriptionId: ID, at: at(10) },
    };
    spec
      .given([...active, failing(at(0)), recovered])
      .when(outcome(false, at(FAILING_GRACE_MS)))
      .then([failing(at(FAILING_GRACE_MS))]);
  });

  it('ignores outcomes for a subscription that is not active', () => {
    spec.given([created]).when(outcome(false, T1)).thenNothing();
    spec
      .given([...active, disabled('gone')])
      .when(outcome(false, T1))
      .thenNothing();
  });

  it('disables at once (410 Gone) only an active subscription, and verification switches it back on', () => {
    spec
      .given(active)
      .when({ type: 'DisableWebhookSubscription', data: { reason: 'gone', now: T1 } })
      .then([disabled('gone')]);
    spec
      .given([...active, disabled('gone')])
      .when({ type: 'DisableWebhookSubscription', data: { reason: 'gone', now: T1 } })
      .thenNothing();
    spec
      .given([...active, disabled('gone')])
      .when(verification(true))
      .then([verified()]);
    expect(fold([...active, failing(T0), disabled('failing'), verified()])).toMatchObject({
      status: 'active',
      disabledReason: null,
      failingSince: null,
    });
  });
});
