import type { Environment } from '@cip/shared/contracts';
import { DeadlineSweep } from '@cip/shared/infrastructure';
import type { ReadStore } from '@cip/shared/read-store';
import type { Clock, Logger, PlatformMetrics } from '@cip/shared/runtime';
import { cardAuthenticationDeadlinesProjection } from '@cip/three-ds/read-models';
import type { ThreeDsService } from './three-ds.service';

/** How often the sweep looks for challenges past their deadline (an expiry is at most this late). */
export const CARD_AUTHENTICATION_EXPIRY_SWEEP_MS = 1_000;

/**
 * Fails closed: expires every pending challenge whose deadline has passed (`cardAuthentication.expired`,
 * then the results saga sends the refusing RReq). Candidates come from the `card_authentication_deadlines`
 * read model (pending challenges only); each is checked on its stream before expiring, so a challenge
 * answered meanwhile, or expired by another sweep, is left alone: it expires exactly once, also after a
 * restart (the deadlines are in the log).
 */
export class CardAuthenticationExpiryScheduler extends DeadlineSweep {
  constructor(
    private readonly threeDs: ThreeDsService,
    ports: {
      readStore(environment: Environment): ReadStore;
      settle(environment: Environment): Promise<void>;
    },
    clock: Clock,
    logger: Logger,
    metrics?: PlatformMetrics,
  ) {
    super({
      what: 'Card authentication expiry',
      intervalMs: CARD_AUTHENTICATION_EXPIRY_SWEEP_MS,
      logger,
      clock,
      metrics,
      deadlines: { collection: cardAuthenticationDeadlinesProjection.collection, ...ports },
    });
  }

  protected expireIfDue(environment: Environment, cardAuthenticationId: string): Promise<boolean> {
    return this.threeDs.expireIfDue(environment, cardAuthenticationId);
  }
}
