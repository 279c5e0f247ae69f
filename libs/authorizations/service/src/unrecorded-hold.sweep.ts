import { ENVIRONMENTS, type Environment } from '@cip/shared/contracts';
import type { EventStore } from '@cip/shared/eventing';
import type { ReadStore } from '@cip/shared/read-store';
import { PeriodicSweep } from '@cip/shared/infrastructure';
import type { Clock, Logger } from '@cip/shared/runtime';
import { walletHoldPlaced } from '@cip/wallets/contract';
import type { AuthorizationsService } from './authorizations.service';

/**
 * How long after a hold was placed its decision must be recorded: the network's own timeout for an 0110
 * (after which it stands in or reverses), with room. Past it, a hold without a recorded decision is released.
 */
export const UNRECORDED_HOLD_AFTER_MS = 60_000;
/** How often the sweep looks (a hold without its decision is released at most this much after the timeout). */
export const UNRECORDED_HOLD_SWEEP_MS = 10_000;

/** Where the sweep keeps how far it has read the log (one document per environment, its version the position). */
export const UNRECORDED_HOLD_SWEEP_COLLECTION = 'unrecorded_hold_sweep';
const CHECKPOINT_ID = 'position';
const PAGE = 500;

export interface UnrecordedHoldSweepOptions {
  /** The decision timeout (default UNRECORDED_HOLD_AFTER_MS). */
  afterMs?: number;
  /** Default UNRECORDED_HOLD_SWEEP_MS, or half the timeout when that is shorter. */
  intervalMs?: number;
}

/**
 * The continuous sweep that keeps "no hold without its authorization" true (issue 31): a payment's hold is
 * placed on the wallet before its decision is recorded (the double-spend guard, `holdForDecision`), so a
 * process killed in between, or a decision that took longer than the network waited, leaves a hold no
 * authorization accounts for, lowering the available balance for ever. The sweep follows the log in order
 * from a checkpoint it keeps in the read store: every `WalletHoldPlaced` of a card authorization older than
 * the timeout is checked once against its authorization's stream, and when that stream does not exist the
 * authorization is abandoned (`AuthorizationsService.abandonUnrecordedHold`: recorded with an expected
 * revision of "no stream", then the hold released). It stops at the first hold not yet old enough, so the
 * checkpoint never passes a hold it has not checked; after a crash it reads again from the checkpoint (a
 * check is idempotent). It runs on every driver: it needs only the event store's `readAll` and a read store.
 *
 * Why not a read model of pending holds with deadlines (as the expiry sweep has): a hold placed by a
 * decision that was recorded would stay due until the authorization's own end (days), since no wallet event
 * says its decision was recorded; and why not a saga: a consumer that waits out the timeout would hold its
 * group (and its lag) a minute behind the log. The sweep's cost is reading the log once, a timeout behind.
 */
export class UnrecordedHoldSweep extends PeriodicSweep {
  private readonly afterMs: number;

  constructor(
    private readonly authorizations: Pick<AuthorizationsService, 'abandonUnrecordedHold'>,
    private readonly ports: {
      eventStore(environment: Environment): EventStore;
      readStore(environment: Environment): ReadStore;
    },
    private readonly clock: Clock,
    logger: Pick<Logger, 'warn'>,
    options: UnrecordedHoldSweepOptions = {},
  ) {
    const afterMs = options.afterMs ?? UNRECORDED_HOLD_AFTER_MS;
    // A short timeout (a test's) is swept often enough to release a hold soon after it.
    const intervalMs = options.intervalMs ?? Math.min(UNRECORDED_HOLD_SWEEP_MS, afterMs / 2);
    super({ what: 'Unrecorded hold', intervalMs, logger, clock });
    this.afterMs = afterMs;
  }

  protected async sweep(): Promise<number> {
    const dueBefore = this.clock.now().getTime() - this.afterMs;
    let abandoned = 0;
    for (const environment of ENVIRONMENTS) abandoned += await this.sweepScope(environment, dueBefore);
    return abandoned;
  }

  private async sweepScope(environment: Environment, dueBefore: number): Promise<number> {
    const readStore = this.ports.readStore(environment);
    const eventStore = this.ports.eventStore(environment);
    let position =
      (await readStore.getVersioned(UNRECORDED_HOLD_SWEEP_COLLECTION, CHECKPOINT_ID))?.version ?? 0;
    let abandoned = 0;
    for (;;) {
      const page = await eventStore.readAll({ after: position, maxCount: PAGE });
      let reached = position;
      let pending = false;
      for (const event of page) {
        if (walletHoldPlaced.is(event) && event.data.kind === 'authorization') {
          if (Date.parse(event.data.at) > dueBefore) {
            pending = true; // not old enough: this hold and everything after it wait for a later sweep
            break;
          }
          const released = await this.authorizations.abandonUnrecordedHold(environment, {
            authorizationId: event.data.reference ?? event.data.holdId,
            walletId: event.data.walletId,
            holdId: event.data.holdId,
            placedAt: event.data.at,
            distributorId: event.metadata.distributorId as string,
          });
          if (released) abandoned++;
        }
        reached = event.position;
      }
      if (reached > position) {
        position = reached;
        const at = this.clock.now().toISOString();
        await readStore.upsertMany(UNRECORDED_HOLD_SWEEP_COLLECTION, [
          { id: CHECKPOINT_ID, doc: { id: CHECKPOINT_ID, createdAt: at, updatedAt: at }, version: position },
        ]);
      }
      if (pending || page.length < PAGE) return abandoned;
    }
  }
}
