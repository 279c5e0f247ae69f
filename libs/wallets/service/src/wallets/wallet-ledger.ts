import { Environment, notFound } from '@cip/shared/contracts';
import type {
  ForcePostInput,
  LedgerBalance,
  LedgerContext,
  PlaceHoldInput,
  ReleaseHoldOptions,
  SettleHoldOptions,
  WalletLedger,
} from '@cip/wallets/contract';
import type { WalletView } from '@cip/wallets/read-models';
import type { WalletStreams } from './wallet-streams';

/** The ledger commands card authorizations call (the WalletLedger contract), and operators' compliance holds. */
export class WalletLedgerCommands implements WalletLedger {
  constructor(private readonly streams: WalletStreams) {}

  placeHold(context: LedgerContext, walletId: string, input: PlaceHoldInput): Promise<LedgerBalance> {
    return this.streams.ledger(
      context,
      walletId,
      (now) => ({ type: 'PlaceHold', data: { ...input, now } }),
      input.holdId,
    );
  }

  // The options may arrive as null through the transport (JSON has no undefined argument).
  releaseHold(
    context: LedgerContext,
    walletId: string,
    holdId: string,
    options?: ReleaseHoldOptions | null,
  ): Promise<LedgerBalance> {
    return this.streams.ledger(
      context,
      walletId,
      (now) => ({
        type: 'ReleaseHold',
        data: { holdId, reversalId: options?.reversalId, amount: options?.amount ?? undefined, now },
      }),
      holdId,
    );
  }

  settleHold(
    context: LedgerContext,
    walletId: string,
    holdId: string,
    amount: number,
    options?: SettleHoldOptions | null,
  ): Promise<LedgerBalance> {
    return this.streams.ledger(
      context,
      walletId,
      (now) => ({
        type: 'SettleHold',
        data: {
          holdId,
          amount,
          clearingId: options?.clearingId,
          final: options?.final ?? undefined,
          overdraftAllowance: options?.overdraftAllowance ?? undefined,
          now,
        },
      }),
      holdId,
    );
  }

  expireHold(context: LedgerContext, walletId: string, holdId: string): Promise<LedgerBalance> {
    return this.streams.ledger(
      context,
      walletId,
      (now) => ({ type: 'ExpireHold', data: { holdId, now } }),
      holdId,
    );
  }

  forcePost(context: LedgerContext, walletId: string, input: ForcePostInput): Promise<LedgerBalance> {
    return this.streams.ledger(context, walletId, (now) => ({ type: 'ForcePost', data: { ...input, now } }));
  }

  refund(
    context: LedgerContext,
    walletId: string,
    input: { refundId: string; amount: number; reference?: string; cardId?: string },
  ): Promise<LedgerBalance> {
    return this.streams.ledger(context, walletId, (now) => ({ type: 'Refund', data: { ...input, now } }));
  }

  chargeFee(
    context: LedgerContext,
    walletId: string,
    input: { feeId: string; amount: number; reference?: string; cardId?: string },
  ): Promise<LedgerBalance> {
    return this.streams.ledger(context, walletId, (now) => ({ type: 'ChargeFee', data: { ...input, now } }));
  }

  /** Operators: blocks spending and withdrawals on a wallet (or lifts the block). */
  async setComplianceHold(
    environment: Environment,
    walletId: string,
    on: boolean,
    reason: string,
  ): Promise<WalletView> {
    const store = this.streams.ports.eventStore(environment);
    const view = await this.streams.view(store, walletId);
    if (!view) throw notFound('Wallet', walletId);
    await this.streams.ledger(
      { environment, distributorId: view.distributorId, correlationId: 'operator' },
      walletId,
      (now) =>
        on
          ? { type: 'PlaceComplianceHold', data: { reason, now } }
          : { type: 'ReleaseComplianceHold', data: { reason, now } },
    );
    return (await this.streams.view(store, walletId)) as WalletView;
  }
}
