import { authorizationsContext } from '@cip/authorizations/service';
import { cardsContext } from '@cip/cards/service';
import { eventsContext } from '@cip/events/service';
import { kycContext } from '@cip/kyc/service';
import { simulatorContext } from '@cip/simulator/service';
import { threeDsContext } from '@cip/three-ds/service';
import { tokenizationContext } from '@cip/tokenization/service';
import type { PersonalDataPolicy } from '@cip/shared/contracts';
import {
  ContextDefinition,
  personalDataOf,
  publicEventMappers,
  RebuildableReadModel,
  readModelsOf,
} from '@cip/shared/infrastructure';
import type { PublicEventMapper } from '@cip/shared/read-store';
import { usersContext } from '@cip/users/service';
import { walletsContext } from '@cip/wallets/service';
import { webhooksContext } from '@cip/webhooks/service';

/**
 * The platform's bounded contexts: the one list the embedded platform runs, the webhook dispatcher takes its
 * topics from (through the public Event mappers), and the CLI verifies and rebuilds the read models of.
 * Adding a context is adding its definition here (docs/adding-a-context.md).
 */
export const PLATFORM_CONTEXTS: readonly ContextDefinition[] = [
  usersContext,
  kycContext,
  walletsContext,
  webhooksContext,
  cardsContext,
  tokenizationContext,
  authorizationsContext,
  threeDsContext,
  simulatorContext,
  // Last: its read model records the public Events of every context above.
  eventsContext,
];

/** Every context's public Event mappers (the recorder turns domain events into Events with them). */
export const PUBLIC_EVENT_MAPPERS: PublicEventMapper[] = publicEventMappers(PLATFORM_CONTEXTS);

/** Every context's personal-data policy: what every runtime writing the contexts' events seals. */
export const PLATFORM_PERSONAL_DATA: PersonalDataPolicy[] = personalDataOf(PLATFORM_CONTEXTS);

/** Every read model of an environment, in the order a rebuild replays them. */
export const READ_MODELS: RebuildableReadModel[] = readModelsOf(PLATFORM_CONTEXTS);

export * from './services';
export * from './app-variables';
