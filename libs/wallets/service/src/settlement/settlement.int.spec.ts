import {
  ContextsModule,
  Infrastructure,
  INFRASTRUCTURE,
  InfrastructureModule,
  openEmbeddedInfrastructure,
} from '@cip/shared/infrastructure';
import type { RecordedEvent } from '@cip/shared/eventing';
import { createLogger, ManualClock, METRICS, PlatformMetrics } from '@cip/shared/runtime';
import { EvmPayout, generateDepositSeed, HdDepositAddressDeriver, PayoutJournal } from '@cip/wallets/chain';
import { LocalChain, localChainKey, startLocalChain } from '@cip/wallets/chain/testing';
import { SETTLEMENT_LEDGER_STREAM } from '@cip/wallets/domain';
import { settlementPublicEvents } from '@cip/wallets/read-models';
import { Test, TestingModule } from '@nestjs/testing';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { generatePrivateKey, privateKeyToAddress } from 'viem/accounts';
import { walletsContext } from '../wallets.context';
import { WALLETS_OPTIONS, WalletsModuleOptions } from '../wallets.module';
import { WalletsService } from '../wallets.service';
import { SettlementBatches } from './settlement-batches';
import { SettlementRunner } from './settlement-runner';

// ---------------------------------------------------------------------------------------------------
// Settlement of cleared card payments on a real EVM chain (ganache, in-process): postings are made on
// the wallet ledger directly (the clearing path is the authorizations context's, tested end to end in
// apps/platform/src/settlement.e2e.spec.ts).
// ---------------------------------------------------------------------------------------------------

const USDC = 1_000_000;
const PROGRAM = 'dst-settling';
const NO_ADDRESS_PROGRAM = 'dst-no-address';
const logger = createLogger('silent');

let chain: LocalChain;
const hotWalletKey = localChainKey('account-0');

beforeAll(async () => {
  chain = await startLocalChain({ accounts: 1 });
  await chain.transfer(chain.accounts[0].address, 10_000n * BigInt(USDC));
}, 30_000);
afterAll(() => chain?.stop());

/** The wallets context on an embedded store, paying on the local chain; `journalWrap` can simulate crashes. */
async function startWallets(
  dataDir: string,
  settlementAddress: string,
  journalWrap: (journal: PayoutJournal) => PayoutJournal = (journal) => journal,
) {
  const clock = new ManualClock();
  const options: WalletsModuleOptions = {
    chain: (_environment, { payoutJournal }) => ({
      deriver: new HdDepositAddressDeriver(generateDepositSeed(), chain.chain),
      payout: new EvmPayout(
        {
          rpcUrl: chain.rpcUrl,
          chainId: chain.chainId,
          tokenAddress: chain.tokenAddress,
          hotWalletPrivateKey: hotWalletKey,
          receiptPollIntervalMs: 10,
        },
        journalWrap(payoutJournal),
        logger,
      ),
    }),
    settlement: {
      settlementAddressOf: (environment, distributorId) =>
        environment === 'sandbox' && distributorId === PROGRAM ? settlementAddress : null,
      intervalMs: 60_000,
    },
  };
  const module: TestingModule = await Test.createTestingModule({
    imports: [
      InfrastructureModule.forRoot({
        open: () => openEmbeddedInfrastructure({ dataDir, pollIntervalMs: 20 }),
        runConsumers: true,
        clock,
        metrics: new PlatformMetrics(false),
        logger,
      }),
      ContextsModule.forRoot({
        contexts: [walletsContext],
        providers: [{ provide: WALLETS_OPTIONS, useValue: options }],
      }),
    ],
  }).compile();
  await module.init();
  const wallets = module.get(WalletsService);
  const eventStore = module.get<Infrastructure>(INFRASTRUCTURE).scope('sandbox').eventStore;
  const context = (distributorId: string) => ({
    environment: 'sandbox' as const,
    distributorId,
    correlationId: 't',
  });
  let counter = 0;
  return {
    clock,
    wallets,
    eventStore,
    batches: module.get(SettlementBatches),
    runner: module.get(SettlementRunner),
    metrics: module.get<PlatformMetrics>(METRICS),
    /** A wallet of `distributorId` holding `funds` USDC. */
    async fundedWallet(distributorId = PROGRAM, funds = 100) {
      const userId = `usr-${++counter}-${Math.random().toString(16).slice(2)}`;
      const wallet = await wallets.provisionWallet('sandbox', { userId, distributorId });
      await wallets.creditDeposit(context(distributorId), wallet.id, {
        depositId: `0x${userId}:0`,
        amount: funds * USDC,
        transactionHash: `0x${userId}`,
        logIndex: 0,
        blockNumber: 1,
        fromAddress: null,
        source: 'simulation',
      });
      return { walletId: wallet.id, userId, distributorId };
    },
    /** An authorization hold of `amount` minor units cleared for `cleared`. */
    async clearedPayment(
      wallet: { walletId: string; distributorId: string },
      amount: number,
      cleared = amount,
    ) {
      const holdId = `aut-${++counter}`;
      await wallets.placeHold(context(wallet.distributorId), wallet.walletId, { holdId, amount });
      await wallets.settleHold(context(wallet.distributorId), wallet.walletId, holdId, cleared, {
        clearingId: holdId,
        overdraftAllowance: Math.max(0, cleared - amount),
      });
    },
    forcePost: (wallet: { walletId: string; distributorId: string }, amount: number) =>
      wallets.forcePost(context(wallet.distributorId), wallet.walletId, {
        postingId: `fp-${++counter}`,
        amount,
      }),
    refund: (wallet: { walletId: string; distributorId: string }, amount: number) =>
      wallets.refund(context(wallet.distributorId), wallet.walletId, { refundId: `rf-${++counter}`, amount }),
    close: () => module.close(),
  };
}

/** The public Events a batch's recorded events give rise to, as the events context records them. */
const publicEventsOf = (events: RecordedEvent[]) =>
  events.flatMap((event) => settlementPublicEvents.toPublicEvents(event, null));

describe('settlement batches on a local EVM chain', () => {
  let dataDir: string;
  let opened: Awaited<ReturnType<typeof startWallets>>;
  let settlementAddress: string;

  beforeEach(async () => {
    dataDir = mkdtempSync(join(tmpdir(), 'cip-settlement-'));
    settlementAddress = privateKeyToAddress(generatePrivateKey());
    opened = await startWallets(dataDir, settlementAddress);
  });
  afterEach(async () => {
    await opened?.close();
    rmSync(dataDir, { recursive: true, force: true });
  });

  it('sends the net of cleared payments, force posts and refunds in one transfer, and names every wallet', async () => {
    const alice = await opened.fundedWallet();
    const bob = await opened.fundedWallet();
    await opened.clearedPayment(alice, 25_000_000, 27_500_000); // cleared above the hold (a tip)
    await opened.clearedPayment(alice, 4_000_000, 1_500_000); // a partial clearing
    await opened.forcePost(bob, 3_000_000);
    await opened.refund(bob, 1_250_000);
    await opened.refund(alice, 500_000);
    const custodyBefore = await chain.tokenBalance(chain.accounts[0].address);

    const run = await opened.runner.runNow('sandbox');

    const net = 27_500_000 + 1_500_000 + 3_000_000 - 1_250_000 - 500_000;
    expect(run.batches).toEqual([expect.objectContaining({ distributorId: PROGRAM, amount: net, items: 5 })]);
    expect(run.settled).toEqual([
      expect.objectContaining({
        outcome: 'confirmed',
        amount: net,
        settled: 32_000_000,
        refunded: 1_750_000,
      }),
    ]);
    const [{ transactionHash, blockNumber, batchId }] = run.settled as {
      transactionHash: `0x${string}`;
      blockNumber: number;
      batchId: string;
    }[];
    expect(await chain.tokenBalance(settlementAddress)).toBe(BigInt(net));
    expect(await chain.tokenBalance(chain.accounts[0].address)).toBe(custodyBefore - BigInt(net));
    const receipt = await chain.client.getTransactionReceipt({ hash: transactionHash });
    expect(receipt).toMatchObject({ status: 'success', blockNumber: BigInt(blockNumber) });
    // One ERC-20 Transfer log, from custody to the settlement address.
    expect(receipt.logs).toHaveLength(1);

    const notices = publicEventsOf(await opened.eventStore.readStream(batchId));
    const common = { eventName: 'blockchainTransaction.confirmed' };
    const body = { transactionHash, blockNumber };
    expect(notices).toEqual(
      expect.arrayContaining([
        expect.objectContaining({
          ...common,
          userId: alice.userId,
          fields: {
            ...body,
            userId: alice.userId,
            walletId: alice.walletId,
            type: 'settlement',
            amount: 29_000_000,
          },
        }),
        expect.objectContaining({
          ...common,
          userId: alice.userId,
          fields: {
            ...body,
            userId: alice.userId,
            walletId: alice.walletId,
            type: 'refund',
            amount: 500_000,
          },
        }),
        expect.objectContaining({
          ...common,
          userId: bob.userId,
          fields: {
            ...body,
            userId: bob.userId,
            walletId: bob.walletId,
            type: 'settlement',
            amount: 3_000_000,
          },
        }),
        expect.objectContaining({
          ...common,
          userId: bob.userId,
          fields: { ...body, userId: bob.userId, walletId: bob.walletId, type: 'refund', amount: 1_250_000 },
        }),
      ]),
    );
    expect(notices).toHaveLength(4);

    // A second run has nothing new to settle; the next payment goes into a new batch alone.
    const again = await opened.runner.runNow('sandbox');
    expect(again.batches).toEqual([]);
    expect(await chain.tokenBalance(settlementAddress)).toBe(BigInt(net));
    await opened.clearedPayment(bob, 2_000_000);
    const next = await opened.runner.runNow('sandbox');
    expect(next.settled).toEqual([expect.objectContaining({ outcome: 'confirmed', amount: 2_000_000 })]);
    expect(await chain.tokenBalance(settlementAddress)).toBe(BigInt(net + 2_000_000));

    const metrics = await opened.metrics.registry.getSingleMetricAsString(
      'wallet_settlement_amount_minor_total',
    );
    expect(metrics).toContain(
      `wallet_settlement_amount_minor_total{environment="sandbox",type="net"} ${net + 2_000_000}`,
    );
  }, 30_000);

  it('keeps the payments of a program without a settlement address waiting, and leaves out releases and fees', async () => {
    const waiting = await opened.fundedWallet(NO_ADDRESS_PROGRAM);
    await opened.clearedPayment(waiting, 1_000_000);
    const paying = await opened.fundedWallet();
    await opened.wallets.placeHold({ environment: 'sandbox', distributorId: PROGRAM }, paying.walletId, {
      holdId: 'aut-released',
      amount: 9_000_000,
    });
    await opened.wallets.releaseHold(
      { environment: 'sandbox', distributorId: PROGRAM },
      paying.walletId,
      'aut-released',
    );
    await opened.wallets.chargeFee({ environment: 'sandbox', distributorId: PROGRAM }, paying.walletId, {
      feeId: 'fee-1',
      amount: 100_000,
    });

    const run = await opened.runner.runNow('sandbox');
    expect(run.batches).toEqual([]);
    expect(run.waiting).toEqual([
      { distributorId: NO_ADDRESS_PROGRAM, reason: 'no_settlement_address', items: 1, amount: 1_000_000 },
    ]);
    const gauge = await opened.metrics.registry.getSingleMetricAsString('wallet_settlement_waiting_items');
    expect(gauge).toContain(
      'wallet_settlement_waiting_items{environment="sandbox",reason="no_settlement_address"} 1',
    );

    // Later payments of the paying program are settled; the waiting ones are still waiting, not lost.
    await opened.clearedPayment(paying, 700_000);
    const later = await opened.runner.runNow('sandbox');
    expect(later.settled).toEqual([expect.objectContaining({ distributorId: PROGRAM, amount: 700_000 })]);
    expect(later.waiting).toEqual([expect.objectContaining({ distributorId: NO_ADDRESS_PROGRAM, items: 1 })]);
  }, 30_000);

  it('never puts an item in two batches when runs race, in this process or another', async () => {
    const wallet = await opened.fundedWallet();
    await opened.clearedPayment(wallet, 6_000_000);
    // A second batcher on the same store, as the CLI's beside the platform.
    const other = new SettlementBatches(
      {
        eventStore: () => opened.eventStore,
        payout: () => {
          throw new Error('the CLI does not pay');
        },
        settlementAddressOf: () => settlementAddress,
      },
      opened.clock,
    );

    const [here, there, again] = await Promise.all([
      opened.batches.cut('sandbox'),
      other.cut('sandbox'),
      opened.runner.runNow('sandbox'),
    ]);
    const claimed = [here, there, again].flatMap((report) => report.batches);
    expect(claimed).toEqual([expect.objectContaining({ amount: 6_000_000 })]);

    await opened.runner.runNow('sandbox');
    expect(await chain.tokenBalance(settlementAddress)).toBe(6_000_000n);
    const ledger = await opened.eventStore.readStream(SETTLEMENT_LEDGER_STREAM);
    const cuts = ledger.flatMap((event) => (event.data as { cuts?: unknown[] }).cuts ?? []);
    expect(cuts).toHaveLength(1);
  }, 30_000);

  it('claims nothing when another run claimed first between its plan and its claim', async () => {
    const wallet = await opened.fundedWallet();
    await opened.clearedPayment(wallet, 4_000_000);
    // A batcher whose scan is held until the other run has claimed: it planned on the ledger as it was.
    let release: () => void = () => undefined;
    const held = new Promise<void>((resolve) => (release = resolve));
    let planning: () => void = () => undefined;
    const ledgerRead = new Promise<void>((resolve) => (planning = resolve));
    const store = opened.eventStore;
    const slow = new SettlementBatches(
      {
        eventStore: () =>
          Object.assign(Object.create(store) as typeof store, {
            headPosition: async () => {
              const head = await store.headPosition();
              planning();
              await held;
              return head;
            },
          }),
        payout: () => {
          throw new Error('the CLI does not pay');
        },
        settlementAddressOf: () => settlementAddress,
      },
      opened.clock,
    );
    const late = slow.cut('sandbox');
    await ledgerRead;
    const first = await opened.batches.cut('sandbox');
    release();
    expect(first.batches).toEqual([expect.objectContaining({ amount: 4_000_000 })]);
    expect(await late).toMatchObject({ conflict: true, batches: [] });
    const ledger = await store.readStream(SETTLEMENT_LEDGER_STREAM);
    expect(ledger.flatMap((event) => (event.data as { cuts?: unknown[] }).cuts ?? [])).toHaveLength(1);
  }, 30_000);

  it('cuts on the schedule of the clock, and not before', async () => {
    const wallet = await opened.fundedWallet();
    await opened.clearedPayment(wallet, 1_000_000);
    await opened.runner.tick(); // starts the schedule
    opened.clock.advance(59_999);
    await opened.runner.tick();
    expect(await chain.tokenBalance(settlementAddress)).toBe(0n);
    opened.clock.advance(1);
    await opened.runner.tick();
    expect(await chain.tokenBalance(settlementAddress)).toBe(1_000_000n);
  }, 30_000);
});

describe('a settlement batch interrupted after its transfer was journaled', () => {
  it('broadcasts the journaled transfer on the next run: one transfer, the same hash', async () => {
    const dataDir = mkdtempSync(join(tmpdir(), 'cip-settlement-crash-'));
    const settlementAddress = privateKeyToAddress(generatePrivateKey());
    let crash = true;
    const opened = await startWallets(dataDir, settlementAddress, (journal) => ({
      find: (id) => journal.find(id),
      async save(entry) {
        await journal.save(entry);
        // The process dies right after the journal write, before the broadcast.
        if (crash) {
          crash = false;
          throw new Error('crashed before broadcast');
        }
      },
    }));
    try {
      const wallet = await opened.fundedWallet();
      await opened.clearedPayment(wallet, 3_300_000);
      const first = await opened.runner.runNow('sandbox');
      expect(first.settled).toEqual([expect.objectContaining({ outcome: 'open' })]);
      expect(await chain.tokenBalance(settlementAddress)).toBe(0n);
      const [{ batchId }] = first.batches;
      const journaled = await opened.batches.batch('sandbox', batchId);
      const hash = journaled.status === 'open' ? journaled.transfer?.hash : undefined;
      expect(hash).toMatch(/^0x[0-9a-f]{64}$/);

      // The retry is due after its back-off on the clock.
      opened.clock.advance(10 * 60_000);
      await opened.runner.settleOpen('sandbox');
      expect(await opened.batches.batch('sandbox', batchId)).toMatchObject({
        status: 'confirmed',
        transactionHash: hash,
      });
      expect(await chain.tokenBalance(settlementAddress)).toBe(3_300_000n);

      // Nothing left to pay: a further run sends nothing.
      await opened.runner.runNow('sandbox');
      expect(await chain.tokenBalance(settlementAddress)).toBe(3_300_000n);
    } finally {
      await opened.close();
      rmSync(dataDir, { recursive: true, force: true });
    }
  }, 30_000);
});
