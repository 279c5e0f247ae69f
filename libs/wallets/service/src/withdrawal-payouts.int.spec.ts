import {
  ConsumerHost,
  Infrastructure,
  INFRASTRUCTURE,
  ContextsModule,
  InfrastructureModule,
  openEmbeddedInfrastructure,
} from '@cip/shared/infrastructure';
import { createLogger, ManualClock, PlatformMetrics } from '@cip/shared/runtime';
import { generateDepositSeed, HdDepositAddressDeriver, PayoutPort, PayoutRequest } from '@cip/wallets/chain';
import { Test, TestingModule } from '@nestjs/testing';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { WALLETS_OPTIONS, WITHDRAWAL_PAYOUT_GROUP } from './wallets.module';
import { walletsContext } from './wallets.context';
import { WalletsService } from './wallets.service';
import { WithdrawalPayouts } from './withdrawal-payouts';

const USDC = 1_000_000;
const DISTRIBUTOR = 'dst-payouts';
const TO = '0x70997970C51812dc3A010C7d01b50e0d17dc79C8';
const caller = {
  environment: 'sandbox' as const,
  distributorId: DISTRIBUTOR,
  requestId: 'r',
  program: { allowedCountries: ['FR'], b2b: false, prepaid: true, kycImportEnabled: false },
};

/**
 * A payout port standing in for the chain: the saga is under test, not the payout. A withdrawal's sends
 * throw (as an unreachable RPC node does) while it is listed in `down`, and confirm otherwise. While
 * `downForNew` is set, a withdrawal sent for the first time joins `down`: the saga may send it as soon as it is
 * requested, before the test could list its id.
 */
class FlakyPayout implements PayoutPort {
  readonly chain = 'simulated';
  readonly sends: PayoutRequest[] = [];
  readonly down = new Set<string>();
  downForNew = false;

  async send(request: PayoutRequest) {
    if (this.downForNew && this.sendsOf(request.withdrawalId) === 0) this.down.add(request.withdrawalId);
    this.sends.push(request);
    if (this.down.has(request.withdrawalId)) throw new Error('RPC node unreachable: fetch failed');
    return { status: 'confirmed' as const, hash: `0x${'ab'.repeat(32)}`, blockHeight: 7, rawTxReceipt: '{}' };
  }

  sendsOf(withdrawalId: string): number {
    return this.sends.filter((s) => s.withdrawalId === withdrawalId).length;
  }
}

/** The wallets module (consumers, withdrawal saga, payout runner) on an embedded store under `dataDir`. */
async function startWallets(dataDir: string, payout: PayoutPort, clock: ManualClock) {
  const module: TestingModule = await Test.createTestingModule({
    imports: [
      InfrastructureModule.forRoot({
        open: () => openEmbeddedInfrastructure({ dataDir, pollIntervalMs: 20 }),
        runConsumers: true,
        clock,
        metrics: new PlatformMetrics(false),
        logger: createLogger('silent'),
      }),
      ContextsModule.forRoot({
        contexts: [walletsContext],
        providers: [
          {
            provide: WALLETS_OPTIONS,
            useValue: {
              chain: () => ({
                deriver: new HdDepositAddressDeriver(generateDepositSeed(), 'simulated'),
                payout,
              }),
            },
          },
        ],
      }),
    ],
  }).compile();
  await module.init();
  const wallets = module.get(WalletsService);
  const payouts = module.get(WithdrawalPayouts);
  const consumers = module.get(ConsumerHost);
  return {
    wallets,
    payouts,
    /** Waits until the saga has handed over every requested withdrawal and no payout attempt is running. */
    async settled() {
      await consumers.drain('sandbox', [WITHDRAWAL_PAYOUT_GROUP]);
      await payouts.idle();
    },
    async withdraw(userId: string, amount: number) {
      const wallet = await wallets.provisionWallet('sandbox', { userId, distributorId: DISTRIBUTOR });
      await wallets.creditDeposit(caller, wallet.id, {
        depositId: `0x${userId}:0`,
        amount: 10 * USDC,
        transactionHash: `0x${userId}`,
        logIndex: 0,
        blockNumber: 1,
        fromAddress: null,
        source: 'simulation',
      });
      return wallets.requestWithdrawal(caller, wallet.id, { amount, toAddress: TO });
    },
    status: async (withdrawalId: string) => (await wallets.getTransaction(caller, withdrawalId)).status,
    async confirmations(walletId: string) {
      const events = await module
        .get<Infrastructure>(INFRASTRUCTURE)
        .scope('sandbox')
        .eventStore.readStream(walletId);
      return events.filter((e) => e.type === 'WithdrawalConfirmed').length;
    },
    close: () => module.close(),
  };
}

describe('withdrawal payouts run independently and are retried on the clock', () => {
  let dataDir: string;
  let clock: ManualClock;
  let payout: FlakyPayout;
  let opened: Awaited<ReturnType<typeof startWallets>>;

  beforeEach(async () => {
    dataDir = mkdtempSync(join(tmpdir(), 'cip-payouts-'));
    clock = new ManualClock();
    payout = new FlakyPayout();
    opened = await startWallets(dataDir, payout, clock);
  });
  afterEach(async () => {
    await opened.close();
    rmSync(dataDir, { recursive: true, force: true });
  });

  it('confirms withdrawal B while the payout of an earlier withdrawal A keeps failing', async () => {
    payout.downForNew = true;
    const a = await opened.withdraw('usr-a', 4 * USDC);
    await opened.settled();
    payout.downForNew = false;
    expect(payout.sendsOf(a.id)).toBe(1);

    const b = await opened.withdraw('usr-b', 3 * USDC);
    await opened.settled();

    expect(await opened.status(b.id)).toBe('completed');
    expect(await opened.wallets.getWallet(caller, b.walletId)).toMatchObject({ balance: 7, pendingHolds: 0 });
    expect(await opened.status(a.id)).toBe('pending');
    expect(await opened.wallets.getWallet(caller, a.walletId)).toMatchObject({
      balance: 10,
      availableBalance: 6,
    });
    expect(opened.payouts.backlog).toBe(1);
  });

  it('retries a failing payout after a growing, jittered back-off and records one confirmation once the node is back', async () => {
    payout.downForNew = true;
    const a = await opened.withdraw('usr-retry', 4 * USDC);
    await opened.settled();
    payout.downForNew = false;
    expect(payout.sendsOf(a.id)).toBe(1);

    // First retry: between 0.5 and 1 s after the failure (1 s with equal jitter).
    const retryAfter = async (ms: number) => {
      clock.advance(ms);
      opened.payouts.runDue();
      await opened.payouts.idle();
    };
    await retryAfter(499);
    expect(payout.sendsOf(a.id)).toBe(1);
    await retryAfter(501);
    expect(payout.sendsOf(a.id)).toBe(2);
    // Second retry: between 1 and 2 s after the second failure.
    await retryAfter(999);
    expect(payout.sendsOf(a.id)).toBe(2);
    payout.down.delete(a.id);
    await retryAfter(1_001);
    expect(payout.sendsOf(a.id)).toBe(3);

    expect(await opened.status(a.id)).toBe('completed');
    expect(await opened.confirmations(a.walletId)).toBe(1);
    expect(opened.payouts.backlog).toBe(0);
    // Nothing is left to retry: more time changes nothing.
    await retryAfter(3_600_000);
    expect(payout.sendsOf(a.id)).toBe(3);
    expect(await opened.confirmations(a.walletId)).toBe(1);
  });

  it('resumes a withdrawal left pending by the previous process and pays it once', async () => {
    payout.downForNew = true;
    const a = await opened.withdraw('usr-restart', 4 * USDC);
    await opened.settled();
    expect(await opened.status(a.id)).toBe('pending');
    await opened.close();

    const recovered = new FlakyPayout();
    opened = await startWallets(dataDir, recovered, clock);
    // The saga's offset is past the request: only resuming from the pending withdrawals pays it.
    await opened.settled();

    expect(recovered.sends).toEqual([{ withdrawalId: a.id, toAddress: TO, amountMinor: 4_000_000n }]);
    expect(await opened.status(a.id)).toBe('completed');
    expect(await opened.confirmations(a.walletId)).toBe(1);
    expect(await opened.wallets.getWallet(caller, a.walletId)).toMatchObject({ balance: 6, pendingHolds: 0 });
  });
});
