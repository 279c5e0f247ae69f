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
    private readonly ports: {
      readStore(environment: Environment): ReadStore;
      settle(environment: Environment): Promise<void>;
    },
    private readonly clock: Clock,
    logger: Logger,
    metrics?: PlatformMetrics,
  ) {
    super({
      what: 'Authorization expiry',
      intervalMs: AUTHORIZATION_EXPIRY_SWEEP_MS,
      logger,
      clock,
      metrics,
    });
  }

  protected settle(environment: Environment): Promise<void> {
    return this.ports.settle(environment);
  }

  protected expireIfDue(environment: Environment, authorizationId: string): Promise<boolean> {
    return this.authorizations.expireIfDue(environment, authorizationId);
  }

  /**
   * Holding authorizations (confirmed, partially cleared) whose `expiresAt` has passed: the read model keeps
   * `expiresAt` only while the authorization holds funds (cleared, reversed and expired ones have none).
   */
  protected due(environment: Environment): Promise<string[]> {
    const now = this.clock.now().toISOString();
    return this.pastDeadline(this.ports.readStore(environment), authorizationsProjection.collection, now);
  }
}
