import { publicEventsReadModel } from '@cip/events/service';
import { projectionReadModel, RebuildableReadModel } from '@cip/shared/infrastructure';
import type { PublicEventMapper } from '@cip/shared/read-store';
import { userPublicEvents, usersProjection } from '@cip/users/read-models';

/**
 * What every app of the platform must agree on, in one place: the contexts' public Event mappers (the
 * recorder and the webhook dispatcher turn domain events into Events with them) and the read models that
 * operators verify and rebuild from the log. The platform runs them; the CLI rebuilds exactly the same ones.
 */
export const PUBLIC_EVENT_MAPPERS: PublicEventMapper[] = [userPublicEvents];

/** Every read model of an environment, in the order a rebuild replays them. */
export const READ_MODELS: RebuildableReadModel[] = [
  projectionReadModel(usersProjection),
  publicEventsReadModel(PUBLIC_EVENT_MAPPERS),
];
