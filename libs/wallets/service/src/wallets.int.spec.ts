import { DomainError } from '@cip/shared/contracts';
import {
  ConsumerHost,
  Infrastructure,
  openEmbeddedInfrastructure,
  projectionReadModel,
  readModelConsumer,
} from '@cip/shared/infrastructure';
import { createLogger, ManualClock } from '@cip/shared/runtime';
import {
  DepositAddressDeriver,
  EvmPayout,
  HdDepositAddressDeriver,
  generateDepositSeed,
  JournaledPayout,
  PayoutPort,
  PayoutRequest,
  SimulatedChain,
  SimulatedPayout,
} from '@cip/wallets/chain';
import { localChainKey, startLocalChain, startRpcProxy } from '@cip/wallets/chain/testing';
import { walletsProjection } from '@cip/wallets/read-models';
import { isLedgerEvent, walletEvents } from '@cip/wallets/domain';
import { waitFor } from '@cip/shared/testing';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { readStoreWatcherCheckpoint, walletDepositSink, walletPayoutJournal } from './chain-bindings';
import { walletTransactionsReadModel } from './wallet-transactions.read-model';
import type { LedgerBalance, LedgerContext } from '@cip/wallets/contract';
import { WalletChain, walletIdOf, WalletsService } from './wallets.service';

const USDC = 1_000_000;
const DISTRIBUTOR = 'dst-test';
const context: LedgerContext = { environment: 'sandbox', distributorId: DISTRIBUTOR };

/** The wallets service on a fresh embedded store, with its read models kept by a running consumer host. */
async function openWallets(
  options: {
    deriver?: DepositAddressDeriver;
    payout?: PayoutPort;
    dataDir?: string;
    /** Holds the wallets read model back until it resolves (a read model lagging behind the log). */
    walletsProjectionGate?: Promise<void>;
  } = {},
) {
  const dataDir = options.dataDir ?? mkdtempSync(join(tmpdir(), 'cip-wallets-'));
  const infrastructure: Infrastructure = openEmbeddedInfrastructure({ dataDir, pollIntervalMs: 20 });
  const consumers = new ConsumerHost();
  const walletsReadModel = readModelConsumer(projectionReadModel(walletsProjection));
  const gate = options.walletsProjectionGate;
  consumers.register({
    ...walletsReadModel,
    handle: async (ports, messages) => {
      await gate;
      return walletsReadModel.handle(ports, messages);
    },
  });
  consumers.registerReadModel(walletTransactionsReadModel);
  await consumers.start(infrastructure);
  const clock = new ManualClock();
  const simulatedChain = new SimulatedChain(clock);
  const chain: WalletChain = {
    deriver: options.deriver ?? new HdDepositAddressDeriver(generateDepositSeed(), 'simulated'),
    payout: options.payout ?? new SimulatedPayout(simulatedChain),
  };
  /** Two instances on one store behave like two processes: they only meet through expected revisions. */
  const newService = () =>
    new WalletsService(
      {
        eventStore: (environment) => infrastructure.scope(environment).eventStore,
        readStore: (environment) => infrastructure.scope(environment).readStore,
        // As the module wires them: lists are served as is after a bounded wait, the watcher's lookups not.
        settle: (environment) =>
          consumers.settle(environment, [walletsReadModel.group, walletTransactionsReadModel.group]),
        catchUpWallets: (environment) => consumers.drain(environment, undefined, 500),
        chain: () => chain,
        simulatedChain,
      },
      clock,
    );
  return {
    wallets: newService(),
    newService,
    /** The adapters the services use, read on each call: a test may swap the payout. */
    chain,
    infrastructure,
    dataDir,
    async close(keepData = false) {
      await consumers.stop();
      await infrastructure.close();
      if (!keepData) rmSync(dataDir, { recursive: true, force: true });
    },
  };
}

type Opened = Awaited<ReturnType<typeof openWallets>>;

const caller = {
  ...context,
  requestId: 'r',
  program: { allowedCountries: ['FR'], b2b: false, prepaid: true, kycImportEnabled: false },
};

async function fundedWallet(opened: Opened, userId: string, amount: number) {
  const wallet = await opened.wallets.provisionWallet('sandbox', { userId, distributorId: DISTRIBUTOR });
  await opened.wallets.creditDeposit(context, wallet.id, {
    depositId: `0x${userId}:0`,
    amount,
    transactionHash: `0x${userId}`,
    logIndex: 0,
    blockNumber: 1,
    fromAddress: null,
    source: 'simulation',
  });
  return wallet;
}

/**
 * The wallet's ledger summed from the amounts of its events alone, beside the figures its last ledger
 * event carries: the two must agree whatever the order the commands ran in.
 */
async function summedLedger(opened: Opened, walletId: string) {
  const recorded = await opened.infrastructure.scope('sandbox').eventStore.readStream(walletId);
  const events = recorded.map((event) => walletEvents.read(event));
  let balance = 0;
  let held = 0;
  let holds = 0;
  let last: { balance: number; held: number } | null = null;
  for (const event of events) {
    if (!isLedgerEvent(event)) continue;
    switch (event.type) {
      case 'WalletDepositCredited':
      case 'WalletRefunded':
        balance += event.data.amount;
        break;
      case 'WalletFeeCharged':
      case 'WalletForcePosted':
        balance -= event.data.amount;
        break;
      case 'WalletHoldPlaced':
        held += event.data.amount;
        holds++;
        break;
      case 'WalletHoldReleased':
        held -= event.data.amount;
        break;
      case 'WalletHoldSettled':
        balance -= event.data.amount;
        held -= event.data.heldAmount;
        break;
      default:
        throw new Error(`unexpected ${event.type} in a card ledger test`);
    }
    last = { balance: event.data.balance, held: event.data.held };
  }
  return { balance, held, holds, last };
}

describe('wallets service on the embedded store', () => {
  let opened: Opened;
  beforeEach(async () => {
    opened = await openWallets();
  });
  afterEach(async () => {
    await opened.close();
  });

  it('lets exactly 10 of 50 concurrent 10 USDC holds through on 100 USDC, from two writers: nothing is spent twice', async () => {
    const wallet = await fundedWallet(opened, 'usr-concurrent', 100 * USDC);
    const writers = [opened.wallets, opened.newService()];
    // The second writer's first read of the wallet happens inside the race, so it starts stale as well.
    const outcomes = await Promise.allSettled(
      Array.from({ length: 50 }, (_, i) =>
        writers[i % 2].placeHold(context, wallet.id, { holdId: `aut-${i}`, amount: 10 * USDC }),
      ),
    );
    const placed = outcomes.filter((o) => o.status === 'fulfilled');
    const refused = outcomes.filter((o): o is PromiseRejectedResult => o.status === 'rejected');
    expect(placed).toHaveLength(10);
    expect(refused).toHaveLength(40);
    expect(
      refused.every((o) => o.reason instanceof DomainError && o.reason.code === 'insufficient_funds'),
    ).toBe(true);
    const caller = {
      ...context,
      requestId: 'r',
      program: { allowedCountries: ['FR'], b2b: false, prepaid: true, kycImportEnabled: false },
    };
    expect(await opened.wallets.getWallet(caller, wallet.id)).toMatchObject({
      balance: 100,
      availableBalance: 0,
      pendingHolds: 100,
    });
    // The ledger is what its events add up to: 10 holds of 10 USDC, each recorded once.
    expect(await summedLedger(opened, wallet.id)).toEqual({
      balance: 100 * USDC,
      held: 100 * USDC,
      holds: 10,
      last: { balance: 100 * USDC, held: 100 * USDC },
    });
    const holds = await opened.wallets.listTransactions(
      caller,
      { walletId: wallet.id, type: 'authorization' },
      { sort: { field: 'createdAt', direction: 'asc' }, page: 0, limit: 100 },
    );
    expect(holds.items).toHaveLength(10);
  });

  it('settles, releases and refunds through the ledger commands, each once', async () => {
    const wallet = await fundedWallet(opened, 'usr-ledger', 100 * USDC);
    await opened.wallets.placeHold(context, wallet.id, { holdId: 'aut-1', amount: 30 * USDC });
    await opened.wallets.placeHold(context, wallet.id, { holdId: 'aut-2', amount: 20 * USDC });
    const tip = { clearingId: 'clr-1', overdraftAllowance: USDC };
    await opened.wallets.settleHold(context, wallet.id, 'aut-1', 31 * USDC, tip);
    await opened.wallets.settleHold(context, wallet.id, 'aut-1', 31 * USDC, tip);
    await opened.wallets.releaseHold(context, wallet.id, 'aut-2');
    await opened.wallets.refund(context, wallet.id, { refundId: 'ref-1', amount: 5 * USDC });
    const final = await opened.wallets.chargeFee(context, wallet.id, { feeId: 'fee-1', amount: USDC });
    expect(final).toEqual({ walletId: wallet.id, balance: 73 * USDC, held: 0, available: 73 * USDC });
  });

  it('refuses ledger commands from another distributor as if the wallet did not exist', async () => {
    const wallet = await fundedWallet(opened, 'usr-tenant', 10 * USDC);
    await expect(
      opened.wallets.placeHold({ ...context, distributorId: 'dst-other' }, wallet.id, {
        holdId: 'aut-x',
        amount: 1,
      }),
    ).rejects.toMatchObject({ code: 'not_found' });
  });

  it('provisions one wallet per user under concurrent and repeated activations, and never reuses an address', async () => {
    const users = Array.from({ length: 12 }, (_, i) => `usr-many-${i}`);
    const attempts = users.flatMap((userId) =>
      [1, 2, 3].map(() => opened.wallets.provisionWallet('sandbox', { userId, distributorId: DISTRIBUTOR })),
    );
    const views = await Promise.all(attempts);
    const store = opened.infrastructure.scope('sandbox').eventStore;
    for (const userId of users) {
      const events = await store.readStream(walletIdOf(userId));
      expect(events.map((e) => e.type)).toEqual(['WalletCreated']);
    }
    const addresses = new Set(users.map((userId) => views.find((v) => v.userId === userId)?.depositAddress));
    expect(addresses.size).toBe(users.length);
  });

  it("finds a user's wallet from its stream at once (card issuing), and nothing for another tenant or a user without one", async () => {
    const wallet = await opened.wallets.provisionWallet('sandbox', {
      userId: 'usr-found',
      distributorId: DISTRIBUTOR,
    });
    expect(await opened.wallets.findUserWallet(caller, 'usr-found')).toMatchObject({
      id: wallet.id,
      userId: 'usr-found',
      status: 'active',
    });
    expect(
      await opened.wallets.findUserWallet({ ...caller, distributorId: 'dst-other' }, 'usr-found'),
    ).toBeNull();
    expect(await opened.wallets.findUserWallet(caller, 'usr-without-wallet')).toBeNull();
  });

  it('records a failed provisioning as create_wallet_error, and an operator retry provisions the wallet', async () => {
    let failing = true;
    const healthy = new HdDepositAddressDeriver(generateDepositSeed(), 'simulated');
    const flaky: DepositAddressDeriver = {
      chain: 'simulated',
      addressAt: (index) => {
        if (failing) throw new Error('HD seed unavailable');
        return healthy.addressAt(index);
      },
    };
    const withFlakyDeriver = await openWallets({ deriver: flaky });
    try {
      const failed = await withFlakyDeriver.wallets.provisionWallet('sandbox', {
        userId: 'usr-flaky',
        distributorId: DISTRIBUTOR,
      });
      expect(failed).toMatchObject({
        status: 'provisioning_failed',
        depositAddress: null,
        error: { code: 'create_wallet_error', message: expect.stringContaining('HD seed unavailable') },
      });
      await expect(
        withFlakyDeriver.wallets.placeHold(context, failed.id, { holdId: 'aut-1', amount: 1 }),
      ).rejects.toMatchObject({ code: 'create_wallet_error' });
      failing = false;
      const retried = await withFlakyDeriver.wallets.retryProvisioning('sandbox', 'usr-flaky');
      expect(retried).toMatchObject({
        id: failed.id,
        status: 'active',
        error: null,
        depositAddress: expect.stringMatching(/^0x/),
      });
    } finally {
      await withFlakyDeriver.close();
    }
  });

  it('credits a watched transfer once, however often the sink gets it, and only to deposit addresses', async () => {
    const wallet = await opened.wallets.provisionWallet('sandbox', {
      userId: 'usr-sink',
      distributorId: DISTRIBUTOR,
    });
    const sink = walletDepositSink(opened.wallets, 'sandbox');
    const address = wallet.depositAddress as string;
    expect(await sink.isDepositAddress(address)).toBe(true);
    expect(await sink.isDepositAddress(address.toLowerCase())).toBe(true);
    expect(await sink.isDepositAddress('0x70997970C51812dc3A010C7d01b50e0d17dc79C8')).toBe(false);
    const transfer = {
      chain: 'evm:31337',
      depositAddress: address,
      fromAddress: '0x70997970C51812dc3A010C7d01b50e0d17dc79C8',
      transactionHash: `0x${'ab'.repeat(32)}`,
      logIndex: 3,
      blockNumber: 42,
      blockHash: `0x${'cd'.repeat(32)}`,
      amountMinor: 7_500_000n,
    };
    await Promise.all([sink.credit(transfer), sink.credit(transfer)]);
    await sink.credit(transfer);
    await sink.credit({ ...transfer, logIndex: 4, amountMinor: 500_000n });
    const caller = {
      ...context,
      requestId: 'r',
      program: { allowedCountries: ['FR'], b2b: false, prepaid: false, kycImportEnabled: false },
    };
    expect(await opened.wallets.getWallet(caller, wallet.id)).toMatchObject({ balance: 8 });
  });

  it('takes zero-value spam and a transfer beyond what the ledger holds without stopping the watcher', async () => {
    const wallet = await opened.wallets.provisionWallet('sandbox', {
      userId: 'usr-sink-limits',
      distributorId: DISTRIBUTOR,
    });
    const refused: string[] = [];
    const sink = walletDepositSink(opened.wallets, 'sandbox', (deposit) =>
      refused.push(deposit.transactionHash),
    );
    const transfer = {
      chain: 'evm:31337',
      depositAddress: wallet.depositAddress as string,
      fromAddress: '0x70997970C51812dc3A010C7d01b50e0d17dc79C8',
      blockNumber: 42,
      blockHash: `0x${'cd'.repeat(32)}`,
    };
    // Each resolves: a rejection would fail the watcher's poll, on this transfer, forever.
    await sink.credit({ ...transfer, transactionHash: `0x${'01'.repeat(32)}`, logIndex: 0, amountMinor: 0n });
    const huge = {
      ...transfer,
      transactionHash: `0x${'02'.repeat(32)}`,
      logIndex: 0,
      amountMinor: 2n ** 80n,
    };
    await sink.credit(huge);
    await sink.credit(huge);
    await sink.credit({
      ...transfer,
      transactionHash: `0x${'03'.repeat(32)}`,
      logIndex: 0,
      amountMinor: 1_000_000n,
    });

    const stream = await opened.infrastructure.scope('sandbox').eventStore.readStream(wallet.id);
    const types = stream.map((event) => event.type);
    expect(types.filter((type) => type === 'WalletDepositRefused')).toHaveLength(1);
    expect(stream.find((event) => event.type === 'WalletDepositRefused')?.data).toMatchObject({
      amountMinor: (2n ** 80n).toString(),
      reason: 'amount_too_large',
    });
    expect(types.filter((type) => type === 'WalletDepositCredited')).toHaveLength(1);
    expect(new Set(refused)).toEqual(new Set([huge.transactionHash]));
    const caller = {
      ...context,
      requestId: 'r',
      program: { allowedCountries: ['FR'], b2b: false, prepaid: false, kycImportEnabled: false },
    };
    expect(await opened.wallets.getWallet(caller, wallet.id)).toMatchObject({ balance: 1 });
  });

  it("never tells the watcher an address is nobody's while the wallets read model is behind the log", async () => {
    let release = () => undefined as void;
    const lagging = await openWallets({ walletsProjectionGate: new Promise<void>((r) => (release = r)) });
    try {
      const wallet = await lagging.wallets.provisionWallet('sandbox', {
        userId: 'usr-lagging',
        distributorId: DISTRIBUTOR,
      });
      const sink = walletDepositSink(lagging.wallets, 'sandbox');
      const address = wallet.depositAddress as string;
      // Saying "not a deposit address" now would let the watcher's checkpoint pass a transfer to it for good.
      await expect(sink.isDepositAddress(address)).rejects.toThrow(/did not reach position/);
      release();
      expect(await sink.isDepositAddress(address)).toBe(true);
    } finally {
      release();
      await lagging.close();
    }
  });

  it('keeps the watcher checkpoint across a restart and never moves it backwards', async () => {
    const checkpoint = readStoreWatcherCheckpoint(opened.infrastructure.scope('sandbox').readStore);
    expect(await checkpoint.load()).toBeNull();
    await checkpoint.save(120);
    await checkpoint.save(100);
    await opened.close(true);
    opened = await openWallets({ dataDir: opened.dataDir });
    expect(await readStoreWatcherCheckpoint(opened.infrastructure.scope('sandbox').readStore).load()).toBe(
      120,
    );
    expect(
      await readStoreWatcherCheckpoint(opened.infrastructure.scope('production').readStore).load(),
    ).toBeNull();
  });

  it('pays a withdrawal once even when the saga step runs again after it was recorded', async () => {
    const sent: PayoutRequest[] = [];
    const payout: PayoutPort = {
      chain: 'simulated',
      send: async (request) => {
        sent.push(request);
        return { status: 'confirmed', hash: '0xfeed', blockHeight: 9, rawTxReceipt: '{}' };
      },
    };
    const counting = await openWallets({ payout });
    try {
      const wallet = await fundedWallet(counting, 'usr-payout', 10 * USDC);
      const caller = {
        ...context,
        requestId: 'r',
        program: { allowedCountries: ['FR'], b2b: false, prepaid: true, kycImportEnabled: false },
      };
      const withdrawal = await counting.wallets.requestWithdrawal(caller, wallet.id, {
        amount: 4 * USDC,
        toAddress: '0x70997970C51812dc3A010C7d01b50e0d17dc79C8',
      });
      const [requested] = (
        await counting.infrastructure.scope('sandbox').eventStore.readStream(wallet.id)
      ).filter((e) => e.type === 'WithdrawalRequested');
      await counting.wallets.executeWithdrawal('sandbox', requested);
      await counting.wallets.executeWithdrawal('sandbox', requested);
      expect(sent).toEqual([
        {
          withdrawalId: withdrawal.id,
          toAddress: '0x70997970C51812dc3A010C7d01b50e0d17dc79C8',
          amountMinor: 4_000_000n,
        },
      ]);
      expect(await counting.wallets.getWallet(caller, wallet.id)).toMatchObject({
        balance: 6,
        pendingHolds: 0,
      });
    } finally {
      await counting.close();
    }
  });
});

describe('payout journal on the wallet stream', () => {
  const TO = '0x70997970C51812dc3A010C7d01b50e0d17dc79C8';
  let opened: Opened;
  beforeEach(async () => {
    opened = await openWallets();
  });
  afterEach(async () => {
    await opened.close();
  });

  async function pendingWithdrawal(userId: string) {
    const wallet = await fundedWallet(opened, userId, 10 * USDC);
    const withdrawal = await opened.wallets.requestWithdrawal(caller, wallet.id, {
      amount: 4 * USDC,
      toAddress: TO,
    });
    const entry: JournaledPayout = {
      withdrawalId: withdrawal.id,
      toAddress: TO.toLowerCase(),
      amountMinor: 4_000_000n,
      hash: `0x${'a1'.repeat(32)}`,
      rawTransaction: '0x02f8b1signed',
    };
    return { wallet, withdrawal, entry };
  }

  const journalEvents = async (walletId: string) =>
    (await opened.infrastructure.scope('sandbox').eventStore.readStream(walletId))
      .map((e) => e.type)
      .filter((type) => type.startsWith('WithdrawalPayout'));

  it('keeps a saved entry across a restart, records a repeated save once, and shows only the hash', async () => {
    const { wallet, withdrawal, entry } = await pendingWithdrawal('usr-journal');
    const journal = walletPayoutJournal(opened.wallets, 'sandbox');
    expect(await journal.find(withdrawal.id)).toBeNull();
    await Promise.all([journal.save(entry), walletPayoutJournal(opened.newService(), 'sandbox').save(entry)]);
    await journal.save(entry);
    expect(await journalEvents(wallet.id)).toEqual(['WithdrawalPayoutSigned']);
    const expected = { ...entry, toAddress: TO };
    expect(await journal.find(withdrawal.id)).toEqual(expected);

    await opened.close(true);
    opened = await openWallets({ dataDir: opened.dataDir });
    const reopened = walletPayoutJournal(opened.wallets, 'sandbox');
    expect(await reopened.find(withdrawal.id)).toEqual(expected);
    const record = await opened.wallets.getTransaction(caller, withdrawal.id);
    expect(record).toMatchObject({ status: 'pending', transactionHash: entry.hash });
    expect(JSON.stringify(record)).not.toContain(entry.rawTransaction);
    expect(await opened.wallets.getWallet(caller, wallet.id)).toMatchObject({
      balance: 10,
      availableBalance: 6,
    });

    await reopened.save({ ...entry, rejectedReason: 'the hot wallet cannot pay the gas for this payout' });
    expect(await reopened.find(withdrawal.id)).toMatchObject({
      hash: entry.hash,
      rejectedReason: 'the hot wallet cannot pay the gas for this payout',
    });
  });

  it('refuses an entry that does not match the withdrawal, or once the withdrawal is resolved', async () => {
    const { wallet, withdrawal, entry } = await pendingWithdrawal('usr-journal-guard');
    const journal = walletPayoutJournal(opened.wallets, 'sandbox');
    await expect(journal.save({ ...entry, amountMinor: 4_000_001n })).rejects.toMatchObject({
      code: 'validation_error',
    });
    await expect(journal.save({ ...entry, withdrawalId: 'txn-unknown' })).rejects.toMatchObject({
      code: 'not_found',
    });
    await journal.save(entry);
    const [requested] = (
      await opened.infrastructure.scope('sandbox').eventStore.readStream(wallet.id)
    ).filter((e) => e.type === 'WithdrawalRequested');
    await opened.wallets.executeWithdrawal('sandbox', requested);
    expect(await opened.wallets.getTransaction(caller, withdrawal.id)).toMatchObject({ status: 'completed' });
    expect(await journal.find(withdrawal.id)).toBeNull();
    await expect(journal.save({ ...entry, hash: `0x${'b2'.repeat(32)}` })).rejects.toMatchObject({
      code: 'invalid_state_transition',
    });
  });

  it('with an EVM payout on a local chain, pays a withdrawal exactly once across crashes before and after broadcast', async () => {
    const chain = await startLocalChain({ accounts: 1 });
    const proxy = await startRpcProxy(chain.rpcUrl);
    // Two confirmations: on the local chain (one block per transaction) a payout is mined but not confirmed
    // until another block comes, so the receipt wait gives up, as a process would die after broadcasting.
    // The receipt wait gives up after 300 ms where the test needs it to (step 2); where a confirmation is
    // awaited (step 3) it is long, so a loaded machine mining late does not fail the test.
    const evmPayout = (wallets: WalletsService, receiptTimeoutMs = 300) =>
      new EvmPayout(
        {
          rpcUrl: proxy.url,
          chainId: chain.chainId,
          tokenAddress: chain.tokenAddress,
          hotWalletPrivateKey: localChainKey('account-0'),
          confirmations: 2,
          receiptTimeoutMs,
          receiptPollIntervalMs: 10,
          rpcTimeoutMs: 2_000,
        },
        walletPayoutJournal(wallets, 'sandbox'),
        createLogger('silent'),
      );
    try {
      await chain.transfer(chain.accounts[0].address, 100_000_000n);
      const { wallet, withdrawal } = await pendingWithdrawal('usr-evm');
      const [requested] = (
        await opened.infrastructure.scope('sandbox').eventStore.readStream(wallet.id)
      ).filter((e) => e.type === 'WithdrawalRequested');
      // 1. The node becomes unreachable the moment the signed payout is journaled: it is never broadcast.
      const crashing = opened.newService();
      const save = crashing.journalPayout.bind(crashing);
      jest.spyOn(crashing, 'journalPayout').mockImplementation(async (...args) => {
        await save(...args);
        proxy.up = false;
      });
      opened.chain.payout = evmPayout(crashing);
      await expect(opened.wallets.executeWithdrawal('sandbox', requested)).rejects.toThrow();
      const journaled = await walletPayoutJournal(opened.wallets, 'sandbox').find(withdrawal.id);
      expect(journaled).not.toBeNull();
      expect(await chain.tokenBalance(TO)).toBe(0n);

      // 2. After a restart, a fresh payout broadcasts the journaled transaction, which is mined, but the
      // process gives up waiting for its confirmations.
      await opened.close(true);
      opened = await openWallets({ dataDir: opened.dataDir });
      proxy.up = true;
      opened.chain.payout = evmPayout(opened.wallets);
      await expect(opened.wallets.executeWithdrawal('sandbox', requested)).rejects.toThrow();
      expect(await chain.tokenBalance(TO)).toBe(4_000_000n);

      // 3. Another fresh payout finds that transaction mined instead of paying a second time; once it
      // polls the head for confirmations, one more block confirms it.
      opened.chain.payout = evmPayout(opened.newService(), 10_000);
      const lookups = proxy.methods.length;
      const retried = opened.wallets.executeWithdrawal('sandbox', requested);
      await waitFor(() => proxy.methods.slice(lookups).includes('eth_blockNumber'), {
        what: 'the retried payout to poll the head',
      });
      await chain.mine(1);
      await retried;
      await opened.wallets.executeWithdrawal('sandbox', requested);

      expect(await chain.tokenBalance(TO)).toBe(4_000_000n);
      expect(await opened.wallets.getTransaction(caller, withdrawal.id)).toMatchObject({
        status: 'completed',
        transactionHash: journaled?.hash,
      });
      expect(await opened.wallets.getWallet(caller, wallet.id)).toMatchObject({
        balance: 6,
        pendingHolds: 0,
      });
    } finally {
      await proxy.close();
      await chain.stop();
    }
    // A guard against a hung run (a local chain started in the test), not a speed check.
  }, 60_000);
});

describe('wallet ledger on the embedded store: clearings and reversals under concurrency', () => {
  let opened: Opened;
  beforeEach(async () => {
    opened = await openWallets();
  });
  afterEach(async () => {
    await opened.close();
  });

  it('takes concurrent partial clearings of one hold up to its amount exactly, each once, from two writers', async () => {
    const wallet = await fundedWallet(opened, 'usr-clearings', 100 * USDC);
    await opened.wallets.placeHold(context, wallet.id, { holdId: 'aut-1', amount: 100 * USDC });
    const writers = [opened.wallets, opened.newService()];
    // 20 clearings of 7 USDC, each sent twice (a retry racing the original): 14 fit in 100 USDC.
    const outcomes = await Promise.allSettled(
      Array.from({ length: 40 }, (_, i) =>
        writers[i % 2].settleHold(context, wallet.id, 'aut-1', 7 * USDC, {
          clearingId: `clr-${i % 20}`,
          final: false,
        }),
      ),
    );
    const refused = outcomes.filter((o): o is PromiseRejectedResult => o.status === 'rejected');
    expect(refused.every((o) => (o.reason as DomainError).code === 'amount_exceeds_hold')).toBe(true);
    const summed = await summedLedger(opened, wallet.id);
    expect(summed).toEqual({
      balance: 2 * USDC,
      held: 2 * USDC,
      holds: 1,
      last: { balance: 2 * USDC, held: 2 * USDC },
    });
    const store = opened.infrastructure.scope('sandbox').eventStore;
    const clearings = (await store.readStream(wallet.id)).filter((e) => e.type === 'WalletHoldSettled');
    expect(clearings).toHaveLength(14);
    // The last 2 USDC: a final clearing with a tip within the tolerance, then the hold is gone.
    const final = await opened.wallets.settleHold(context, wallet.id, 'aut-1', 5 * USDC, {
      clearingId: 'clr-final',
      overdraftAllowance: 3 * USDC,
    });
    expect(final).toEqual({
      walletId: wallet.id,
      balance: -3 * USDC,
      held: 0,
      available: -3 * USDC,
      hold: null,
    });
  });

  it('answers each of many concurrent commands on one wallet with the ledger right after its own, in one order', async () => {
    const wallet = await fundedWallet(opened, 'usr-batched', 100 * USDC);
    // Decided together while appends are in flight: a refused one in the middle changes nothing for the rest.
    const answers = await Promise.allSettled(
      Array.from({ length: 21 }, (_, i) =>
        i === 10
          ? opened.wallets.placeHold(context, wallet.id, { holdId: 'aut-big', amount: 1_000 * USDC })
          : opened.wallets.placeHold(context, wallet.id, { holdId: `aut-${i}`, amount: 5 * USDC }),
      ),
    );
    expect(answers[10]).toMatchObject({ status: 'rejected', reason: { code: 'insufficient_funds' } });
    const held = answers
      .filter((a): a is PromiseFulfilledResult<LedgerBalance> => a.status === 'fulfilled')
      .map((a) => a.value.held / USDC)
      .sort((a, b) => a - b);
    expect(held).toEqual(Array.from({ length: 20 }, (_, i) => 5 * (i + 1)));
    expect(await summedLedger(opened, wallet.id)).toMatchObject({ held: 100 * USDC, holds: 20 });
  });

  it('answers the hold figures after partial reversals and clearings, releases the rest on expiry, and force posts once', async () => {
    const wallet = await fundedWallet(opened, 'usr-reversals', 50 * USDC);
    expect(
      await opened.wallets.placeHold(context, wallet.id, { holdId: 'aut-1', amount: 40 * USDC }),
    ).toMatchObject({
      hold: { holdId: 'aut-1', authorized: 40 * USDC, cleared: 0, released: 0, held: 40 * USDC },
    });
    const reversal = { reversalId: 'rev-1', amount: 10 * USDC };
    await opened.wallets.releaseHold(context, wallet.id, 'aut-1', reversal);
    expect(await opened.wallets.releaseHold(context, wallet.id, 'aut-1', reversal)).toMatchObject({
      held: 30 * USDC,
      hold: { released: 10 * USDC, held: 30 * USDC },
    });
    expect(
      await opened.wallets.settleHold(context, wallet.id, 'aut-1', 12 * USDC, {
        clearingId: 'clr-1',
        final: false,
      }),
    ).toMatchObject({ balance: 38 * USDC, held: 18 * USDC, hold: { cleared: 12 * USDC, held: 18 * USDC } });
    expect(await opened.wallets.expireHold(context, wallet.id, 'aut-1')).toEqual({
      walletId: wallet.id,
      balance: 38 * USDC,
      held: 0,
      available: 38 * USDC,
      hold: null,
    });
    const forced = { postingId: 'fp-1', amount: 45 * USDC, reference: 'late clearing' };
    await opened.wallets.forcePost(context, wallet.id, forced);
    expect(await opened.wallets.forcePost(context, wallet.id, forced)).toMatchObject({ balance: -7 * USDC });
    expect(await summedLedger(opened, wallet.id)).toMatchObject({ balance: -7 * USDC, held: 0 });
    // The transactions list: the partly cleared, expired authorization completed for what was cleared.
    await waitFor(
      async () => {
        const list = await opened.wallets.listTransactions(
          caller,
          { walletId: wallet.id, type: 'authorization' },
          { sort: { field: 'createdAt', direction: 'asc' }, page: 0, limit: 10 },
        );
        return list.items.length === 2 && list.items.every((t) => t.status === 'completed');
      },
      { what: 'the expired authorization and the force post in the transactions read model' },
    );
    const list = await opened.wallets.listTransactions(
      caller,
      { walletId: wallet.id, type: 'authorization' },
      { sort: { field: 'createdAt', direction: 'asc' }, page: 0, limit: 10 },
    );
    expect(list.items.map((t) => [t.reference, t.amount])).toEqual(
      expect.arrayContaining([
        ['aut-1', 12],
        ['late clearing', 45],
      ]),
    );
  });
});
