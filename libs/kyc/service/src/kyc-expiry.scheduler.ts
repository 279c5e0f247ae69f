import { kycLinkDeadlinesProjection } from '@cip/kyc/read-models';
import type { Environment } from '@cip/shared/contracts';
import { DeadlineSweep } from '@cip/shared/infrastructure';
import type { ReadStore } from '@cip/shared/read-store';
import type { Clock, Logger, PlatformMetrics } from '@cip/shared/runtime';
import type { KycService } from './kyc.service';

/** How often the sweep looks for links past their 14 days (an expiry is at most this late). */
export const KYC_EXPIRY_SWEEP_MS = 60_000;

/**
 * Expires hosted KYCs whose link has passed its 14 days (`kyc.expired`). Deadlines come from the
 * `kyc-link-deadlines` read model (open links only), so each sweep reads only what is due.
 */
export class KycExpiryScheduler extends DeadlineSweep {
  constructor(
    private readonly kyc: KycService,
    ports: {
      readStore(environment: Environment): ReadStore;
      settle(environment: Environment): Promise<void>;
    },
    clock: Clock,
    logger: Logger,
    metrics?: PlatformMetrics,
  ) {
    super({
      what: 'KYC expiry',
      intervalMs: KYC_EXPIRY_SWEEP_MS,
      logger,
      clock,
      metrics,
      deadlines: { collection: kycLinkDeadlinesProjection.collection, ...ports },
    });
  }

  protected expireIfDue(environment: Environment, kycId: string): Promise<boolean> {
    return this.kyc.expireIfDue(environment, kycId);
  }
}
