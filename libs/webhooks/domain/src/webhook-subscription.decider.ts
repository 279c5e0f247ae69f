import { Decider, DomainError } from '@cip/shared/contracts';
import type { LastVerification, WebhookSubscriptionStatus } from '@cip/webhooks/contract';
import { failingGraceOver } from './delivery-outcome.policy';

export { WEBHOOK_SUBSCRIPTION_STATUSES } from '@cip/webhooks/contract';
export type { LastVerification, WebhookSubscriptionStatus };
import type {
  ChangeWebhookUrl,
  CreateWebhookSubscription,
  DisableWebhookSubscription,
  RecordDeliveryOutcome,
  RecordVerification,
  WebhookSubscriptionCommand,
} from './webhook-subscription.commands';
import {
  webhookSubscriptionEvents,
  type DisabledReason,
  type WebhookSubscriptionEvent,
} from './webhook-subscription.events';

// ---------------------------------------------------------------------------------------------------
// State
// ---------------------------------------------------------------------------------------------------

export interface WebhookSubscriptionRecord {
  status: WebhookSubscriptionStatus;
  subscriptionId: string;
  distributorId: string;
  url: string;
  sealedSecret: string;
  verifiedAt: string | null;
  lastVerification: LastVerification | null;
  disabledReason: DisabledReason | null;
  /** Time of the first failed delivery since the last success; null while deliveries succeed. */
  failingSince: string | null;
  createdAt: string;
  updatedAt: string;
}

export type WebhookSubscriptionState = { status: 'absent' } | WebhookSubscriptionRecord;

export const isWebhookSubscription = (state: WebhookSubscriptionState): state is WebhookSubscriptionRecord =>
  state.status !== 'absent';

// ---------------------------------------------------------------------------------------------------
// Decide
// ---------------------------------------------------------------------------------------------------

/** A deleted subscription is gone for the API: every command on it answers not found. */
function live(state: WebhookSubscriptionState): WebhookSubscriptionRecord {
  if (!isWebhookSubscription(state) || state.status === 'deleted') {
    throw new DomainError('not_found', 'Webhook subscription was not found');
  }
  return state;
}

function create(
  { data }: CreateWebhookSubscription,
  state: WebhookSubscriptionState,
): WebhookSubscriptionEvent[] {
  if (isWebhookSubscription(state)) {
    throw new DomainError(
      'invalid_state_transition',
      `Webhook subscription ${data.subscriptionId} already exists`,
    );
  }
  return [
    {
      type: 'WebhookSubscriptionCreated',
      data: {
        subscriptionId: data.subscriptionId,
        distributorId: data.distributorId,
        url: data.url,
        sealedSecret: data.sealedSecret,
        createdAt: data.now,
      },
    },
  ];
}

function recordVerification(
  { data }: RecordVerification,
  state: WebhookSubscriptionState,
): WebhookSubscriptionEvent[] {
  const subscription = live(state);
  // The url changed while the handshake ran: its outcome says nothing about the current url.
  if (subscription.url !== data.url) return [];
  const { subscriptionId } = subscription;
  if (!data.verified) {
    return [
      {
        type: 'WebhookSubscriptionVerificationFailed',
        data: { subscriptionId, url: data.url, reason: data.reason ?? 'verification failed', at: data.now },
      },
    ];
  }
  if (subscription.status === 'active') return [];
  // Verifying again is also how a disabled subscription is switched back on.
  return [{ type: 'WebhookSubscriptionVerified', data: { subscriptionId, url: data.url, at: data.now } }];
}

function changeUrl({ data }: ChangeWebhookUrl, state: WebhookSubscriptionState): WebhookSubscriptionEvent[] {
  const subscription = live(state);
  if (subscription.url === data.url) return [];
  return [
    {
      type: 'WebhookSubscriptionUrlChanged',
      data: {
        subscriptionId: subscription.subscriptionId,
        url: data.url,
        previousUrl: subscription.url,
        at: data.now,
      },
    },
  ];
}

function disable(
  { data }: DisableWebhookSubscription,
  state: WebhookSubscriptionState,
): WebhookSubscriptionEvent[] {
  const subscription = live(state);
  if (subscription.status !== 'active') return [];
  return [
    {
      type: 'WebhookSubscriptionDisabled',
      data: { subscriptionId: subscription.subscriptionId, reason: data.reason, at: data.now },
    },
  ];
}

function recordDeliveryOutcome(
  { data }: RecordDeliveryOutcome,
  state: WebhookSubscriptionState,
): WebhookSubscriptionEvent[] {
  if (!isWebhookSubscription(state) || state.status !== 'active') return [];
  const { subscriptionId, failingSince } = state;
  if (data.succeeded) {
    return failingSince
      ? [{ type: 'WebhookDeliveriesRecovered', data: { subscriptionId, at: data.now } }]
      : [];
  }
  if (!failingSince) return [{ type: 'WebhookDeliveriesFailing', data: { subscriptionId, since: data.now } }];
  if (!failingGraceOver(failingSince, data.now)) return [];
  return [{ type: 'WebhookSubscriptionDisabled', data: { subscriptionId, reason: 'failing', at: data.now } }];
}

export function decideWebhookSubscription(
  command: WebhookSubscriptionCommand,
  state: WebhookSubscriptionState,
): WebhookSubscriptionEvent[] {
  switch (command.type) {
    case 'CreateWebhookSubscription':
      return create(command, state);
    case 'RecordVerification':
      return recordVerification(command, state);
    case 'ChangeWebhookUrl':
      return changeUrl(command, state);
    case 'DisableWebhookSubscription':
      return disable(command, state);
    case 'DeleteWebhookSubscription': {
      const subscription = live(state);
      return [
        {
          type: 'WebhookSubscriptionDeleted',
          data: { subscriptionId: subscription.subscriptionId, url: subscription.url, at: command.data.now },
        },
      ];
    }
    case 'RecordDeliveryOutcome':
      return recordDeliveryOutcome(command, state);
    default: {
      const unknown: never = command;
      throw new Error(`Unknown command ${(unknown as WebhookSubscriptionCommand).type}`);
    }
  }
}

// ---------------------------------------------------------------------------------------------------
// Evolve
// ---------------------------------------------------------------------------------------------------

export function evolveWebhookSubscription(
  state: WebhookSubscriptionState,
  event: WebhookSubscriptionEvent,
): WebhookSubscriptionState {
  if (event.type === 'WebhookSubscriptionCreated') {
    return {
      status: 'unverified',
      subscriptionId: event.data.subscriptionId,
      distributorId: event.data.distributorId,
      url: event.data.url,
      sealedSecret: event.data.sealedSecret,
      verifiedAt: null,
      lastVerification: null,
      disabledReason: null,
      failingSince: null,
      createdAt: event.data.createdAt,
      updatedAt: event.data.createdAt,
    };
  }
  if (!isWebhookSubscription(state)) return state;
  switch (event.type) {
    case 'WebhookSubscriptionVerified':
      return {
        ...state,
        status: 'active',
        verifiedAt: event.data.at,
        lastVerification: { at: event.data.at, verified: true, reason: null },
        disabledReason: null,
        failingSince: null,
        updatedAt: event.data.at,
      };
    case 'WebhookSubscriptionVerificationFailed':
      return {
        ...state,
        lastVerification: { at: event.data.at, verified: false, reason: event.data.reason },
        updatedAt: event.data.at,
      };
    case 'WebhookSubscriptionUrlChanged':
      return {
        ...state,
        status: 'unverified',
        url: event.data.url,
        verifiedAt: null,
        lastVerification: null,
        failingSince: null,
        updatedAt: event.data.at,
      };
    case 'WebhookSubscriptionDisabled':
      return { ...state, status: 'disabled', disabledReason: event.data.reason, updatedAt: event.data.at };
    case 'WebhookSubscriptionDeleted':
      return { ...state, status: 'deleted', updatedAt: event.data.at };
    case 'WebhookDeliveriesFailing':
      return { ...state, failingSince: event.data.since };
    case 'WebhookDeliveriesRecovered':
      return { ...state, failingSince: null };
    default: {
      const unknown: never = event;
      return unknown;
    }
  }
}

export const webhookSubscriptionDecider: Decider<
  WebhookSubscriptionCommand,
  WebhookSubscriptionEvent,
  WebhookSubscriptionState
> = {
  decide: decideWebhookSubscription,
  evolve: evolveWebhookSubscription,
  initialState: () => ({ status: 'absent' }),
  events: webhookSubscriptionEvents,
};
