import { publicEventsReadModel } from '@cip/events/service';
import { projectionReadModel, RebuildableReadModel } from '@cip/shared/infrastructure';
import type { PublicEventMapper } from '@cip/shared/read-store';
import { kycLinkDeadlinesProjection, kycPublicEvents, kycsProjection } from '@cip/kyc/read-models';
import { userPublicEvents, usersProjection } from '@cip/users/read-models';
import { walletPublicEvents, walletsProjection } from '@cip/wallets/read-models';
import { walletTransactionsReadModel } from '@cip/wallets/service';
import { webhookSubscriptionPublicEvents, webhookSubscriptionsProjection } from '@cip/webhooks/read-models';

/**
 * What every app of the platform must agree on, in one place: the contexts' public Event mappers (the
 * recorder turns domain events into Events with them, and the webhook dispatcher delivers those) and the read models that
 * operators verify and rebuild from the log. The platform runs them; the CLI rebuilds exactly the same ones.
 */
export const PUBLIC_EVENT_MAPPERS: PublicEventMapper[] = [
  userPublicEvents,
  kycPublicEvents,
  walletPublicEvents,
  webhookSubscriptionPublicEvents,
];

/** Every read model of an environment, in the order a rebuild replays them. */
export const READ_MODELS: RebuildableReadModel[] = [
  projectionReadModel(usersProjection),
  projectionReadModel(kycsProjection),
  projectionReadModel(kycLinkDeadlinesProjection),
  projectionReadModel(walletsProjection),
  walletTransactionsReadModel,
  projectionReadModel(webhookSubscriptionsProjection),
  publicEventsReadModel(PUBLIC_EVENT_MAPPERS),
];
export * from './users-for-kyc';
