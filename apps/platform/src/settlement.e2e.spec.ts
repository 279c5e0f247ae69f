import { DEFAULT_PROGRAM_AUTHORIZATION } from '@cip/authorizations/contract';
import { systemClock } from '@cip/shared/runtime';
import { waitFor } from '@cip/shared/testing';
import { SIMULATED_SETTLEMENT_ADDRESS } from '@cip/wallets/chain';
import { SettlementBatches, type SettlementCutReport } from '@cip/wallets/service';
import { activeUserWithWallet, distributorCalls, issuerLinked, withSandboxLog } from './testing/cardholders';
import { cli, Harness, startHarness } from './testing/platform-harness';

// Settlement on the sandbox's simulated chain, on both topologies: card payments made and cleared through the
// sandbox card network, a settlement run cut by the operator's CLI (`cli settlement run`) and paid by the
// running platform (the wallets service when split), and the blockchainTransaction.confirmed Events a
// distributor reads. The same path on a real EVM chain (ganache), with kill -9, is in
// settlement-crash.e2e.spec.ts.

/** A CLI run starts a node process (seconds on a loaded machine); a test makes one or two. */
const CLI_RUNS_TIMEOUT_MS = 90_000;

describe('settlement of cleared card payments on the simulated chain', () => {
  let h: Harness;
  const { post, get } = distributorCalls(() => h);
  const merchant = { name: 'Corner Cafe', city: 'Paris', country: 'FR', mcc: '5814' };

  beforeAll(async () => {
    h = await startHarness();
    await issuerLinked(h);
  });
  afterAll(async () => {
    await h?.close();
  });

  /** The batches cut now, as an operator cuts them: the platform pays them (within a second while it runs). */
  const runSettlement = async (): Promise<SettlementCutReport> =>
    JSON.parse(await cli(h.dataDir, ['settlement', 'run', '--env', 'sandbox', '--json']));
  /** A batch as recorded on the sandbox log (read as the CLI reads it: DATA_DIR's stores when split). */
  const batchOf = (batchId: string) =>
    withSandboxLog(h, (log) =>
      new SettlementBatches(
        {
          eventStore: () => log.eventStore,
          payout: () => {
            throw new Error('the test only reads batches');
          },
          settlementAddressOf: () => null,
        },
        systemClock,
      ).batch('sandbox', batchId),
    );
  /** Resolves with the batch once the platform paid it (confirmed or failed). */
  const settledBatch = async (batchId: string) => {
    await waitFor(async () => (await batchOf(batchId)).status !== 'open', {
      what: `settlement batch ${batchId} to be paid by the platform`,
      timeoutMs: 30_000,
    });
    return batchOf(batchId);
  };
  // The Events list is read-your-writes: what was appended before the call is in it.
  const chainEventsOf = async (userId: string) => {
    const response = await get('/v1/events', {
      userId,
      eventName: 'blockchainTransaction.confirmed',
      limit: '100',
    });
    expect(response.status).toBe(200);
    return (response.body.items as { data: Record<string, unknown> }[]).filter(
      (event) => event.data.type === 'settlement' || event.data.type === 'refund',
    );
  };

  async function cardholder(funds: number) {
    const holder = await activeUserWithWallet(h);
    const card = await post('/v1/cards', { userId: holder.userId, type: 'virtual' });
    expect(card.status).toBe(201);
    expect((await post('/v1/simulate/deposit', { walletId: holder.walletId, amount: funds })).status).toBe(
      201,
    );
    return { ...holder, cardId: card.body.id as string };
  }

  async function paid(cardId: string, amount: number) {
    const authorization = await post('/v1/simulate/authorization', {
      cardId,
      amount,
      currency: 'USD',
      merchant,
    });
    expect(authorization.body.network).toMatchObject({ responseCode: '00' });
    const clearing = await post('/v1/simulate/authorization/clearing', {
      authorizationId: authorization.body.authorization.id,
    });
    expect(clearing.body.delivered).toBe(true);
  }

  it(
    'settles what was cleared and refunded in one transfer, and tells each wallet with its type and amount',
    async () => {
      const ada = await cardholder(100);
      const bob = await cardholder(100);
      await paid(ada.cardId, 25);
      await paid(ada.cardId, 4.5);
      await paid(bob.cardId, 10);
      const refund = await post('/v1/simulate/authorization/refund', {
        cardId: bob.cardId,
        amount: 3,
        merchant,
      });
      expect(refund.body.network).toMatchObject({ responseCode: '00' });
      // An authorization that is not cleared yet is not settled.
      await post('/v1/simulate/authorization', { cardId: ada.cardId, amount: 7, currency: 'USD', merchant });

      const run = await runSettlement();
      const net = 25_000_000 + 4_500_000 + 10_000_000 - 3_000_000;
      expect(run.batches).toEqual([
        expect.objectContaining({ distributorId: h.distributorId, amount: net, items: 4 }),
      ]);
      const [{ batchId }] = run.batches;
      const batch = await settledBatch(batchId);
      expect(batch).toMatchObject({
        status: 'confirmed',
        amount: net,
        settlementAddress: SIMULATED_SETTLEMENT_ADDRESS,
      });
      const { transactionHash, blockNumber } = batch as { transactionHash: string; blockNumber: number };

      const adaEvents = await chainEventsOf(ada.userId);
      expect(adaEvents).toEqual([
        expect.objectContaining({
          eventName: 'blockchainTransaction.confirmed',
          userId: ada.userId,
          eventTargetId: ada.walletId,
          data: {
            userId: ada.userId,
            walletId: ada.walletId,
            type: 'settlement',
            amount: 29_500_000,
            transactionHash,
            blockNumber,
          },
        }),
      ]);
      expect(transactionHash).toMatch(/^0x[0-9a-f]{64}$/);
      expect(typeof blockNumber).toBe('number');
      const bobEvents = await chainEventsOf(bob.userId);
      expect(bobEvents.map((event) => event.data)).toEqual(
        expect.arrayContaining([
          {
            userId: bob.userId,
            walletId: bob.walletId,
            type: 'settlement',
            amount: 10_000_000,
            transactionHash,
            blockNumber,
          },
          {
            userId: bob.userId,
            walletId: bob.walletId,
            type: 'refund',
            amount: 3_000_000,
            transactionHash,
            blockNumber,
          },
        ]),
      );
      expect(bobEvents).toHaveLength(2);

      // Run again: nothing new is settled, no Event repeats.
      expect((await runSettlement()).batches).toEqual([]);
      expect(await chainEventsOf(ada.userId)).toHaveLength(1);

      // The process that paid the batch counts it (the wallets service's /metrics when split).
      const metrics = await (await fetch(`${h.systemUrl('wallets')}/metrics`)).text();
      expect(metrics).toContain('wallet_settlement_batches_total{environment="sandbox",outcome="confirmed"}');
    },
    CLI_RUNS_TIMEOUT_MS,
  );

  it(
    "does not mix one program's payments into another's batch, each sent to its program's address",
    async () => {
      // The other program has its own settlement address (its settings); ours uses the configured one.
      const theirAddress = '0x1111111111111111111111111111111111111111';
      const other = await h.newDistributor({
        authorization: { ...DEFAULT_PROGRAM_AUTHORIZATION, settlementAddress: theirAddress },
      });
      const theirs = await activeUserWithWallet(h, { key: other.sandboxKey });
      const card = await post('/v1/cards', { userId: theirs.userId, type: 'virtual' }, other.sandboxKey);
      await post('/v1/simulate/deposit', { walletId: theirs.walletId, amount: 50 }, other.sandboxKey);
      const authorization = await post(
        '/v1/simulate/authorization',
        { cardId: card.body.id, amount: 8, currency: 'USD', merchant },
        other.sandboxKey,
      );
      await post(
        '/v1/simulate/authorization/clearing',
        { authorizationId: authorization.body.authorization.id },
        other.sandboxKey,
      );
      const ours = await cardholder(20);
      await paid(ours.cardId, 2);

      const run = await runSettlement();
      expect(run.batches).toEqual(
        expect.arrayContaining([
          expect.objectContaining({
            distributorId: other.distributorId,
            amount: 8_000_000,
            items: 1,
          }),
          expect.objectContaining({
            distributorId: h.distributorId,
            amount: 2_000_000,
            items: 1,
          }),
        ]),
      );
      expect(run.batches).toHaveLength(2);
      const addressOf = async (distributorId: string) => {
        const { batchId } = run.batches.find((batch) => batch.distributorId === distributorId)!;
        const batch = await settledBatch(batchId);
        return batch.status === 'absent' ? null : batch.settlementAddress;
      };
      expect(await addressOf(other.distributorId)).toBe(theirAddress);
      expect(await addressOf(h.distributorId)).toBe(SIMULATED_SETTLEMENT_ADDRESS);
      // Each distributor reads its own Events only.
      const mine = await get('/v1/events', {
        userId: theirs.userId,
        eventName: 'blockchainTransaction.confirmed',
      });
      expect(mine.body.items).toEqual([]);
      expect(await chainEventsOf(ours.userId)).toEqual([
        expect.objectContaining({ data: expect.objectContaining({ type: 'settlement', amount: 2_000_000 }) }),
      ]);
      const theirEvents = await get(
        '/v1/events',
        { userId: theirs.userId, eventName: 'blockchainTransaction.confirmed' },
        other.sandboxKey,
      );
      expect(
        (theirEvents.body.items as { data: { type: string } }[]).filter(
          (event) => event.data.type !== 'deposit',
        ),
      ).toEqual([
        expect.objectContaining({ data: expect.objectContaining({ type: 'settlement', amount: 8_000_000 }) }),
      ]);
    },
    CLI_RUNS_TIMEOUT_MS,
  );
});
