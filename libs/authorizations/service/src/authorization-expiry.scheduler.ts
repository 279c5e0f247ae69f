import { authorizationsProjection } from '@cip/authorizations/read-models';
import type { Environment } from '@cip/shared/contracts';
import { DeadlineSweep } from '@cip/shared/infrastructure';
import type { ReadStore } from '@cip/shared/read-store';
import type { Clock, Logger, PlatformMetrics } from '@cip/shared/runtime';
import type { AuthorizationsService } from './authorizations.service';

/** How often the sweep looks for holds past their window (an expiry is at most this late). */
export const AUTHORIZATION_EXPIRY_SWEEP_MS = 60_000;

/**
 * Expires authorizations whose uncleared hold has passed the program's window (`cardAuthorization.expired`,
 * the hold released). Candidates come from the `authorizations` read model; each is checked on its stream
 * before expiring.
 */
export class AuthorizationExpiryScheduler extends DeadlineSweep {
  constructor(
    private readonly authorizations: AuthorizationsService,
    ports: {
      readStore(environment: Environment): ReadStore;
      settle(environment: Environment): Promise<void>;
    },
    clock: Clock,
    logger: Logger,
    metrics?: PlatformMetrics,
  ) {
    super({
      what: 'Authorization expiry',
      intervalMs: AUTHORIZATION_EXPIRY_SWEEP_MS,
      logger,
      clock,
      metrics,
      deadlines: { collection: authorizationsProjection.collection, ...ports },
    });
  }

  protected expireIfDue(environment: Environment, authorizationId: string): Promise<boolean> {
    return this.authorizations.expireIfDue(environment, authorizationId);
  }
}
