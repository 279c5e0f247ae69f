import { Caller, DomainError, Environment, notFound } from '@cip/shared/contracts';
import { loadState, RecordedEvent } from '@cip/shared/eventing';
import { newId } from '@cip/shared/runtime';
import type { JournaledPayout } from '@cip/wallets/chain';
import type { LedgerContext, WithdrawalInput } from '@cip/wallets/contract';
import { isWallet, minorFromBigInt, walletDecider, walletEvents } from '@cip/wallets/domain';
import { TRANSACTIONS_COLLECTION, TransactionRecord } from '@cip/wallets/read-models';
import { checksum as getAddress, validate as isAddress } from 'ox/Address';
import type { WalletQueries } from './wallet-queries';
import type { WalletStreams } from './wallet-streams';

/** Withdrawals: requested (funds held), paid out through the payout port with a journal, confirmed or rejected. */
export class WalletWithdrawals {
  constructor(
    private readonly streams: WalletStreams,
    private readonly queries: WalletQueries,
  ) {}

  async requestWithdrawal(
    caller: Caller,
    walletId: string,
    input: WithdrawalInput,
  ): Promise<TransactionRecord> {
    if (!caller.program.prepaid) {
      throw new DomainError('forbidden', 'Withdrawals are available to prepaid programs only');
    }
    if (!isAddress(input.toAddress)) {
      throw new DomainError(
        'validation_error',
        'toAddress must be an EVM address (0x and 40 hex digits, valid checksum)',
        [{ field: 'toAddress', message: 'must be an EVM address' }],
      );
    }
    const withdrawalId = newId('txn');
    const toAddress = getAddress(input.toAddress);
    await this.streams.ledger(this.streams.callerContext(caller), walletId, (now) => ({
      type: 'RequestWithdrawal',
      data: { withdrawalId, amount: input.amount, toAddress, now },
    }));
    return this.queries.getTransaction(caller, withdrawalId);
  }

  /**
   * The withdrawal saga's step: pays out a requested withdrawal and records the outcome. Run again after
   * a crash it first checks that the withdrawal is still pending, and the payout port sends at most once
   * per withdrawal id, so a withdrawal is never paid twice. It throws when the payout could not be
   * settled (node unreachable, receipt not in time): the withdrawal stays pending and is tried again.
   */
  async executeWithdrawal(environment: Environment, requested: RecordedEvent): Promise<void> {
    const event = walletEvents.read(requested);
    if (event.type !== 'WithdrawalRequested') throw new Error(`${event.type} is not a withdrawal request`);
    const { walletId, withdrawalId, amount, toAddress } = event.data;
    const context: LedgerContext = {
      environment,
      distributorId: requested.metadata.distributorId ?? '',
      correlationId: requested.metadata.correlationId,
      causationId: requested.metadata.eventId,
    };
    const { state } = await loadState(this.streams.ports.eventStore(environment), walletDecider, walletId);
    if (!isWallet(state) || state.holds.get(withdrawalId)?.kind !== 'withdrawal') return;
    const result = await this.streams.ports
      .chain(environment)
      .payout.send({ withdrawalId, toAddress, amountMinor: BigInt(amount) });
    await this.streams.ledger(context, walletId, (now) =>
      result.status === 'confirmed'
        ? {
            type: 'ConfirmWithdrawal',
            data: {
              withdrawalId,
              hash: result.hash,
              blockHeight: result.blockHeight,
              rawTxReceipt: result.rawTxReceipt,
              now,
            },
          }
        : { type: 'RejectWithdrawal', data: { withdrawalId, reason: result.reason, hash: result.hash, now } },
    );
  }

  /**
   * The `WithdrawalRequested` events of the withdrawals the transactions read model shows pending (the
   * payouts to resume on start); the caller makes sure the read model is caught up.
   */
  async pendingWithdrawalRequests(environment: Environment): Promise<RecordedEvent[]> {
    const readStore = this.streams.ports.readStore(environment);
    const pending: TransactionRecord[] = [];
    for (let page = 0; ; page++) {
      const result = await readStore.find<TransactionRecord>(TRANSACTIONS_COLLECTION, {
        filter: { type: 'withdrawal', status: 'pending' },
        sort: { field: 'createdAt', direction: 'asc' },
        page,
        limit: 1000,
      });
      pending.push(...result.items);
      if (!result.hasMore) break;
    }
    const withdrawalIds = new Set(pending.map((record) => record.id));
    const requests: RecordedEvent[] = [];
    for (const walletId of new Set(pending.map((record) => record.walletId))) {
      const events = await this.streams.ports.eventStore(environment).readStream(walletId);
      requests.push(
        ...events.filter(
          (event) =>
            event.type === 'WithdrawalRequested' &&
            withdrawalIds.has((event.data as { withdrawalId: string }).withdrawalId),
        ),
      );
    }
    return requests;
  }

  /**
   * The payout journaled for a pending withdrawal, folded from its wallet's stream (so it includes what
   * was saved a moment ago), or null when none was signed or the withdrawal is no longer pending.
   */
  async journaledPayout(environment: Environment, withdrawalId: string): Promise<JournaledPayout | null> {
    const record = await this.streams.withdrawalRecord(environment, withdrawalId);
    if (!record) return null;
    const { state } = await loadState(
      this.streams.ports.eventStore(environment),
      walletDecider,
      record.walletId,
    );
    const pending = isWallet(state) ? state.holds.get(withdrawalId) : undefined;
    if (pending?.kind !== 'withdrawal' || !pending.payout) return null;
    const { hash, rawTransaction, refusedReason } = pending.payout;
    return {
      withdrawalId,
      toAddress: pending.toAddress,
      amountMinor: BigInt(pending.amount),
      hash,
      rawTransaction,
      ...(refusedReason !== null && { rejectedReason: refusedReason }),
    };
  }

  /**
   * Journals the signed payout of a pending withdrawal on its wallet's stream (insert or replace); it
   * resolves once the event is appended, so the payout may then be broadcast.
   */
  async journalPayout(environment: Environment, entry: JournaledPayout): Promise<void> {
    const record = await this.streams.withdrawalRecord(environment, entry.withdrawalId);
    if (!record) throw notFound('Withdrawal', entry.withdrawalId);
    await this.streams.ledger(
      { environment, distributorId: record.distributorId, correlationId: entry.withdrawalId },
      record.walletId,
      (now) => ({
        type: 'JournalPayout',
        data: {
          withdrawalId: entry.withdrawalId,
          toAddress: entry.toAddress,
          amount: minorFromBigInt(entry.amountMinor),
          hash: entry.hash,
          rawTransaction: entry.rawTransaction,
          refusedReason: entry.rejectedReason ?? null,
          now,
        },
      }),
    );
  }
}
