import { kycLinkDeadlinesProjection, KycLinkDeadline } from '@cip/kyc/read-models';
import { Environment, ENVIRONMENTS } from '@cip/shared/contracts';
import type { ReadStore } from '@cip/shared/read-store';
import type { Clock, Logger } from '@cip/shared/runtime';
import type { KycService } from './kyc.service';

/** How often the sweep looks for links past their 14 days (an expiry is at most this late). */
export const KYC_EXPIRY_SWEEP_MS = 60_000;
const PAGE = 100;

/**
 * Expires hosted KYCs whose link has passed its 14 days (`kyc.expired`). Deadlines come from the
 * `kyc-link-deadlines` read model, oldest first, so each sweep reads only what is due; they live in
 * the store, so what fell due while the platform was down is expired by the first sweep after a start.
 * Time is the injected clock's: tests move a ManualClock and call `runDue()`.
 */
export class KycExpiryScheduler {
  private timer: NodeJS.Timeout | null = null;
  private running: Promise<number> | null = null;

  constructor(
    private readonly kyc: KycService,
    private readonly ports: {
      readStore(environment: Environment): ReadStore;
      settle(environment: Environment): Promise<void>;
    },
    private readonly clock: Clock,
    private readonly logger: Logger,
  ) {}

  start(): void {
    if (this.timer) return;
    const sweep = () => {
      this.runDue().catch((error) => this.logger.warn({ err: error }, 'KYC expiry sweep failed'));
    };
    this.timer = setInterval(sweep, KYC_EXPIRY_SWEEP_MS);
    this.timer.unref();
    sweep();
  }

  async stop(): Promise<void> {
    if (this.timer) clearInterval(this.timer);
    this.timer = null;
    await this.running?.catch(() => undefined);
  }

  /** Expires everything due now, in both environments; returns how many KYCs it expired. */
  runDue(): Promise<number> {
    // One sweep at a time: a tick during a long sweep joins it rather than reading the same deadlines.
    this.running ??= this.sweep().finally(() => (this.running = null));
    return this.running;
  }

  private async sweep(): Promise<number> {
    let expired = 0;
    for (const environment of ENVIRONMENTS) {
      await this.ports.settle(environment);
      for (const kycId of await this.due(environment)) {
        if (await this.kyc.expireIfDue(environment, kycId)) expired++;
      }
    }
    return expired;
  }

  private async due(environment: Environment): Promise<string[]> {
    const now = this.clock.now().toISOString();
    const due: string[] = [];
    for (let page = 0; ; page++) {
      const { items, hasMore } = await this.ports
        .readStore(environment)
        .find<KycLinkDeadline>(kycLinkDeadlinesProjection.collection, {
          filter: {},
          sort: { field: 'createdAt', direction: 'asc' },
          page,
          limit: PAGE,
        });
      for (const deadline of items) {
        if (deadline.expiresAt > now) return due;
        due.push(deadline.id);
      }
      if (!hasMore) return due;
    }
  }
}
