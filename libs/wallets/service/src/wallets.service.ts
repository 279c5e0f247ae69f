import type { Caller, Environment, FindPage, FindResult } from '@cip/shared/contracts';
import type { RecordedEvent } from '@cip/shared/eventing';
import type { Clock } from '@cip/shared/runtime';
import type { JournaledPayout } from '@cip/wallets/chain';
import type {
  LedgerBalance,
  LedgerContext,
  PlaceHoldInput,
  TransactionListFilter,
  WalletComplianceApi,
  WalletLedger,
  WalletListFilter,
  WalletsApi,
  WalletSimulationApi,
  WithdrawalInput,
} from '@cip/wallets/contract';
import type { TransactionRecord, WalletView } from '@cip/wallets/read-models';
import { WalletDeposits } from './wallets/wallet-deposits';
import { WalletLedgerCommands } from './wallets/wallet-ledger';
import { WalletProvisioning } from './wallets/wallet-provisioning';
import { WalletQueries } from './wallets/wallet-queries';
import { WalletStreams, WalletsPorts } from './wallets/wallet-streams';
import { WalletWithdrawals } from './wallets/wallet-withdrawals';

export { walletIdOf } from './wallets/wallet-streams';
export type { WalletChain, WalletsPorts } from './wallets/wallet-streams';

/**
 * The wallets context, as its contracts and its runners see it. The work is done by its parts, one file
 * each under `wallets/`: provisioning (one wallet and one deposit address per activated user), queries,
 * deposits, withdrawals (requested, paid out, confirmed or rejected) and the ledger commands of card
 * authorizations; every change is a command on the wallet stream through `WalletStreams`.
 */
export class WalletsService implements WalletsApi, WalletSimulationApi, WalletLedger, WalletComplianceApi {
  private readonly provisioning: WalletProvisioning;
  private readonly queries: WalletQueries;
  private readonly deposits: WalletDeposits;
  private readonly withdrawals: WalletWithdrawals;
  private readonly ledger: WalletLedgerCommands;

  constructor(ports: WalletsPorts, clock: Clock) {
    const streams = new WalletStreams(ports, clock);
    this.provisioning = new WalletProvisioning(streams);
    this.queries = new WalletQueries(streams);
    this.deposits = new WalletDeposits(streams, this.queries);
    this.withdrawals = new WalletWithdrawals(streams, this.queries);
    this.ledger = new WalletLedgerCommands(streams);
  }

  // Provisioning (the provisioning saga, operators)
  provisionWallet(
    environment: Environment,
    owner: { userId: string; distributorId: string; causationId?: string },
  ): Promise<WalletView> {
    return this.provisioning.provisionWallet(environment, owner);
  }

  retryProvisioning(environment: Environment, userId: string): Promise<WalletView> {
    return this.provisioning.retryProvisioning(environment, userId);
  }

  // Queries (WalletsApi, the deposit watcher)
  getWallet(caller: Caller, walletId: string): Promise<WalletView> {
    return this.queries.getWallet(caller, walletId);
  }

  listWallets(caller: Caller, filter: WalletListFilter, page: FindPage): Promise<FindResult<WalletView>> {
    return this.queries.listWallets(caller, filter, page);
  }

  findUserWallet(caller: Caller, userId: string): Promise<WalletView | null> {
    return this.queries.findUserWallet(caller, userId);
  }

  listTransactions(
    caller: Caller,
    filter: TransactionListFilter,
    page: FindPage,
  ): Promise<FindResult<TransactionRecord>> {
    return this.queries.listTransactions(caller, filter, page);
  }

  getTransaction(caller: Caller, transactionId: string): Promise<TransactionRecord> {
    return this.queries.getTransaction(caller, transactionId);
  }

  walletByDepositAddress(environment: Environment, address: string): Promise<WalletView | null> {
    return this.queries.walletByDepositAddress(environment, address);
  }

  // Deposits (the deposit watcher, WalletSimulationApi)
  creditDeposit(...args: Parameters<WalletDeposits['creditDeposit']>): Promise<LedgerBalance> {
    return this.deposits.creditDeposit(...args);
  }

  refuseDeposit(...args: Parameters<WalletDeposits['refuseDeposit']>): Promise<void> {
    return this.deposits.refuseDeposit(...args);
  }

  simulateDeposit(caller: Caller, walletId: string, amount: number): Promise<TransactionRecord> {
    return this.deposits.simulateDeposit(caller, walletId, amount);
  }

  // Withdrawals (WalletsApi, the payout runner and its journal)
  requestWithdrawal(caller: Caller, walletId: string, input: WithdrawalInput): Promise<TransactionRecord> {
    return this.withdrawals.requestWithdrawal(caller, walletId, input);
  }

  executeWithdrawal(environment: Environment, requested: RecordedEvent): Promise<void> {
    return this.withdrawals.executeWithdrawal(environment, requested);
  }

  pendingWithdrawalRequests(environment: Environment): Promise<RecordedEvent[]> {
    return this.withdrawals.pendingWithdrawalRequests(environment);
  }

  journaledPayout(environment: Environment, withdrawalId: string): Promise<JournaledPayout | null> {
    return this.withdrawals.journaledPayout(environment, withdrawalId);
  }

  journalPayout(environment: Environment, entry: JournaledPayout): Promise<void> {
    return this.withdrawals.journalPayout(environment, entry);
  }

  // The ledger (WalletLedger: card authorizations) and compliance holds (operators)
  placeHold(context: LedgerContext, walletId: string, input: PlaceHoldInput): Promise<LedgerBalance> {
    return this.ledger.placeHold(context, walletId, input);
  }

  releaseHold(...args: Parameters<WalletLedger['releaseHold']>): Promise<LedgerBalance> {
    return this.ledger.releaseHold(...args);
  }

  settleHold(...args: Parameters<WalletLedger['settleHold']>): Promise<LedgerBalance> {
    return this.ledger.settleHold(...args);
  }

  expireHold(...args: Parameters<WalletLedger['expireHold']>): Promise<LedgerBalance> {
    return this.ledger.expireHold(...args);
  }

  forcePost(...args: Parameters<WalletLedger['forcePost']>): Promise<LedgerBalance> {
    return this.ledger.forcePost(...args);
  }

  refund(...args: Parameters<WalletLedger['refund']>): Promise<LedgerBalance> {
    return this.ledger.refund(...args);
  }

  chargeFee(...args: Parameters<WalletLedger['chargeFee']>): Promise<LedgerBalance> {
    return this.ledger.chargeFee(...args);
  }

  setComplianceHold(
    environment: Environment,
    walletId: string,
    on: boolean,
    reason: string,
  ): Promise<WalletView> {
    return this.ledger.setComplianceHold(environment, walletId, on, reason);
  }
}
