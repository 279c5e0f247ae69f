import { DomainError } from '@cip/shared/contracts';
import { ConsumerHost, Infrastructure, openEmbeddedInfrastructure } from '@cip/shared/infrastructure';
import { ManualClock } from '@cip/shared/runtime';
import {
  DepositAddressDeriver,
  HdDepositAddressDeriver,
  generateDepositSeed,
  PayoutPort,
  PayoutRequest,
  SimulatedChain,
  SimulatedPayout,
} from '@cip/wallets/chain';
import {
  recordWalletTransactions,
  WALLET_TRANSACTIONS_GROUP,
  walletsProjection,
} from '@cip/wallets/read-models';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { readStoreWatcherCheckpoint, walletDepositSink } from './chain-bindings';
import { LedgerContext } from './wallets.api';
import { walletIdOf, WalletsService } from './wallets.service';

const USDC = 1_000_000;
const DISTRIBUTOR = 'dst-test';
const context: LedgerContext = { environment: 'sandbox', distributorId: DISTRIBUTOR };

/** The wallets service on a fresh embedded store, with its read models kept by a running consumer host. */
async function openWallets(
  options: { deriver?: DepositAddressDeriver; payout?: PayoutPort; dataDir?: string } = {},
) {
  const dataDir = options.dataDir ?? mkdtempSync(join(tmpdir(), 'cip-wallets-'));
  const infrastructure: Infrastructure = openEmbeddedInfrastructure({ dataDir, pollIntervalMs: 20 });
  const consumers = new ConsumerHost();
  consumers.registerProjection(walletsProjection);
  consumers.register({
    group: WALLET_TRANSACTIONS_GROUP,
    topics: ['wlt'],
    handle: (ports, messages) =>
      recordWalletTransactions(
        ports.readStore,
        messages.map((m) => m.event),
      ),
  });
  await consumers.start(infrastructure);
  const clock = new ManualClock();
  const simulatedChain = new SimulatedChain(clock);
  const chain = {
    deriver: options.deriver ?? new HdDepositAddressDeriver(generateDepositSeed(), 'simulated'),
    payout: options.payout ?? new SimulatedPayout(simulatedChain),
  };
  /** Two instances on one store behave like two processes: they only meet through expected revisions. */
  const newService = () =>
    new WalletsService(
      {
        eventStore: (environment) => infrastructure.scope(environment).eventStore,
        readStore: (environment) => infrastructure.scope(environment).readStore,
        settle: (environment) => consumers.drain(environment),
        chain: () => chain,
        simulatedChain,
      },
      clock,
    );
  return {
    wallets: newService(),
    newService,
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
    const caller = { ...context, requestId: 'r', program: { prepaid: true } };
    expect(await opened.wallets.getWallet(caller, wallet.id)).toMatchObject({
      balance: 100,
      availableBalance: 0,
      pendingHolds: 100,
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
    await opened.wallets.settleHold(context, wallet.id, 'aut-1', 31 * USDC);
    await opened.wallets.settleHold(context, wallet.id, 'aut-1', 31 * USDC);
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
    const caller = { ...context, requestId: 'r', program: { prepaid: false } };
    expect(await opened.wallets.getWallet(caller, wallet.id)).toMatchObject({ balance: 8 });
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
      const caller = { ...context, requestId: 'r', program: { prepaid: true } };
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
