import type { AuthorizationView } from '@cip/authorizations/contract';
import { authorizationsProjection } from '@cip/authorizations/read-models';
import { Environment, ENVIRONMENTS } from '@cip/shared/contracts';
import type { ReadStore } from '@cip/shared/read-store';
import type { Clock, Logger } from '@cip/shared/runtime';
import type { AuthorizationsService } from './authorizations.service';

/** How often the sweep looks for holds past their window (an expiry is at most this late). */
export const AUTHORIZATION_EXPIRY_SWEEP_MS = 60_000;
const PAGE = 100;
/** The statuses that still hold funds. */
const HOLDING = ['confirmed', 'partially_cleared'] as const;

/**
 * Expires authorizations whose uncleared hold has passed the program's window (`cardAuthorization.expired`,
 * the hold released). Candidates come from the `authorizations` read model; each is checked on its stream
 * before expiring. They live in the store, so what fell due while the platform was down is
 * expired by the first sweep after a start. Time is the injected clock's: tests move a ManualClock and
 * call `runDue()`.
 */
export class AuthorizationExpiryScheduler {
  private timer: NodeJS.Timeout | null = null;
  private running: Promise<number> | null = null;

  constructor(
    private readonly authorizations: AuthorizationsService,
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
      this.runDue().catch((error) => this.logger.warn({ err: error }, 'Authorization expiry sweep failed'));
    };
    this.timer = setInterval(sweep, AUTHORIZATION_EXPIRY_SWEEP_MS);
    this.timer.unref();
    sweep();
  }

  async stop(): Promise<void> {
    if (this.timer) clearInterval(this.timer);
    this.timer = null;
    await this.running?.catch(() => undefined);
  }

  /** Expires everything due now, in both environments; returns how many authorizations it expired. */
  runDue(): Promise<number> {
    this.running ??= this.sweep().finally(() => (this.running = null));
    return this.running;
  }

  private async sweep(): Promise<number> {
    let expired = 0;
    for (const environment of ENVIRONMENTS) {
      await this.ports.settle(environment);
      for (const authorizationId of await this.due(environment)) {
        if (await this.authorizations.expireIfDue(environment, authorizationId)) expired++;
      }
    }
    return expired;
  }

  /**
   * Holding authorizations (confirmed, partially cleared) whose `expiresAt` has passed. Every holding one is
   * read: windows differ by program, so an order by age is not an order by deadline. A deadline index (as
   * the KYC link deadlines have) is the step up when the holding set grows large.
   */
  private async due(environment: Environment): Promise<string[]> {
    const now = this.clock.now().toISOString();
    const due: string[] = [];
    for (const status of HOLDING) {
      for (let page = 0; ; page++) {
        const { items, hasMore } = await this.ports
          .readStore(environment)
          .find<AuthorizationView>(authorizationsProjection.collection, {
            filter: { status },
            sort: { field: 'createdAt', direction: 'asc' },
            page,
            limit: PAGE,
          });
        for (const item of items) if (item.expiresAt && item.expiresAt <= now) due.push(item.id);
        if (!hasMore) break;
      }
    }
    return due;
  }
}
