import { waitFor } from '@cip/shared/testing';
import { activeUserWithWallet } from './testing/cardholders';
import { Harness, PRODUCTION_KEY, SANDBOX_KEY, startHarness } from './testing/platform-harness';

describe('wallets over /v1, as a distributor uses them', () => {
  let h: Harness;
  const json = { 'content-type': 'application/json' };
  const sandbox = { 'x-api-key': SANDBOX_KEY };
  const RECEIVER = '0x70997970C51812dc3A010C7d01b50e0d17dc79C8';

  beforeAll(async () => {
    h = await startHarness();
  });
  afterAll(async () => {
    await h.close();
  });

  /** A user activated by its verification (KYC over /v1), then the wallet the provisioning saga gave it. */
  async function activatedUserWallet(key = SANDBOX_KEY) {
    const { userId } = await activeUserWithWallet(h, { key });
    const listed = await h.http.get('/v1/wallets').query({ userId }).set({ 'x-api-key': key });
    expect(listed.body.count).toBe(1);
    return { userId, wallet: listed.body.items[0] };
  }

  const deposit = (walletId: string, amount: unknown, key = SANDBOX_KEY) =>
    h.http
      .post('/v1/simulate/deposit')
      .set({ 'x-api-key': key, ...json })
      .send({ walletId, amount });
  const withdraw = (walletId: string, body: Record<string, unknown>, key = SANDBOX_KEY) =>
    h.http
      .post(`/v1/wallets/${walletId}/withdrawals`)
      .set({ 'x-api-key': key, ...json })
      .send(body);
  const wallet = async (walletId: string, key = SANDBOX_KEY) =>
    (await h.http.get(`/v1/wallets/${walletId}`).set({ 'x-api-key': key })).body;
  /**
   * The saga hands a withdrawal to the payout runner, which records its outcome: what the distributor sees is
   * the transaction leaving `pending` (reads are read-your-writes from then on).
   */
  async function payoutSettled(transactionId: string) {
    await waitFor(
      async () =>
        (await h.http.get(`/v1/transactions/${transactionId}`).set(sandbox)).body.status !== 'pending',
      { what: `the payout of ${transactionId} recorded`, intervalMs: 50 },
    );
  }
  /** The admin's operator action on a wallet (compliance hold placed or released), over the operator API. */
  const operatorHold = async (walletId: string, action: 'place' | 'release', reason: string) =>
    h.operatorHttp
      .post(
        `/operator/v1/environments/sandbox/wallets/${walletId}/compliance-hold${action === 'release' ? '/release' : ''}`,
      )
      .set((await h.operatorAdmin()).headers)
      .send({ reason })
      .expect(200);
  const events = async (userId: string, eventName: string) =>
    (await h.http.get('/v1/events').query({ userId, eventName, limit: 100 }).set(sandbox)).body.items;

  describe('provisioning', () => {
    it('gives an activated user exactly one USDC wallet with its own deposit address', async () => {
      const { userId, wallet: listed } = await activatedUserWallet();
      const other = await activatedUserWallet();
      expect(listed).toMatchObject({
        userId,
        status: 'active',
        chain: 'simulated',
        currency: 'USDC',
        balance: 0,
        availableBalance: 0,
        pendingHolds: 0,
        complianceHold: null,
        error: null,
      });
      expect(listed.id).toMatch(/^wlt-[0-9a-f-]{36}$/);
      expect(listed.depositAddress).toMatch(/^0x[0-9a-fA-F]{40}$/);
      expect(other.wallet.depositAddress).not.toBe(listed.depositAddress);
      expect(listed).not.toHaveProperty('distributorId');
      expect(await wallet(listed.id)).toEqual(listed);

      const [created] = await events(userId, 'wallet.created');
      expect(created).toMatchObject({
        eventTargetId: listed.id,
        userId,
        data: { depositAddress: listed.depositAddress },
      });
    });

    it('answers 404 for an unknown wallet and for another distributor’s wallet', async () => {
      const { wallet: mine } = await activatedUserWallet();
      const other = await h.newDistributor();
      expect((await h.http.get(`/v1/wallets/${mine.id}`).set({ 'x-api-key': other.sandboxKey })).status).toBe(
        404,
      );
      expect((await h.http.get('/v1/wallets/wlt-nope').set(sandbox)).body.error.code).toBe('not_found');
      const listed = await h.http
        .get('/v1/wallets')
        .query({ userId: mine.userId })
        .set({ 'x-api-key': other.sandboxKey });
      expect(listed.body.count).toBe(0);
    });
  });

  describe('simulated deposits', () => {
    it('credits the wallet, lists the deposit and sends blockchainTransaction.confirmed and balance.updated', async () => {
      const { userId, wallet: w } = await activatedUserWallet();
      const response = await deposit(w.id, 100.5);
      expect(response.status).toBe(201);
      expect(response.body).toMatchObject({
        walletId: w.id,
        userId,
        type: 'deposit',
        status: 'completed',
        amount: 100.5,
        currency: 'USDC',
      });
      expect(response.body.transactionHash).toMatch(/^0x[0-9a-f]{64}$/);
      expect(await wallet(w.id)).toMatchObject({ balance: 100.5, availableBalance: 100.5, pendingHolds: 0 });

      const [confirmed] = await events(userId, 'blockchainTransaction.confirmed');
      expect(confirmed.data).toMatchObject({
        walletId: w.id,
        type: 'deposit',
        amount: 100_500_000,
        transactionHash: response.body.transactionHash,
        blockNumber: response.body.blockNumber,
      });
      const [updated] = await events(userId, 'balance.updated');
      expect(updated.data).toMatchObject({ balance: 100.5, availableBalance: 100.5 });

      const listed = await h.http.get('/v1/transactions').query({ walletId: w.id }).set(sandbox);
      expect(listed.body.items).toEqual([response.body]);
      expect((await h.http.get(`/v1/transactions/${response.body.id}`).set(sandbox)).body).toEqual(
        response.body,
      );
    });

    it.each([
      ['more than 6 decimals', 1.0000001],
      ['zero', 0],
      ['a negative amount', -5],
      ['a string', '10'],
    ])('refuses %s with 400 and credits nothing', async (_name, amount) => {
      const { wallet: w } = await activatedUserWallet();
      const response = await deposit(w.id, amount);
      expect(response.status).toBe(400);
      expect(response.body.error.code).toBe('validation_error');
      expect((await wallet(w.id)).balance).toBe(0);
    });

    it('refuses an amount JSON would silently round (more digits than a double keeps) with 400', async () => {
      const { wallet: w } = await activatedUserWallet();
      for (const literal of ['1.00000000000000001', '0.1000000000000000055511151231257827']) {
        const response = await h.http
          .post('/v1/simulate/deposit')
          .set({ 'x-api-key': SANDBOX_KEY, ...json })
          .send(`{"walletId":"${w.id}","amount":${literal}}`);
        expect([literal, response.status, response.body.error.code]).toEqual([
          literal,
          400,
          'validation_error',
        ]);
      }
      expect((await wallet(w.id)).balance).toBe(0);
    });

    it('credits up to 1,000,000,000 USDC to the last decimal; beyond, 422 amount_too_large and nothing changes', async () => {
      const { userId, wallet: w } = await activatedUserWallet();
      // 2^53 - 1 and 2^53 + 1 minor units, as a JSON parser reads them (neither is a double exactly).
      const NEAR_2_POW_53 = [Number('9007199254.740991'), Number('9007199254.740993')];
      for (const amount of [1_000_000_000.000001, ...NEAR_2_POW_53, 1e21]) {
        const refused = await deposit(w.id, amount);
        expect([amount, refused.status, refused.body.error.code]).toEqual([amount, 422, 'amount_too_large']);
      }
      expect((await deposit(w.id, 999_999_999.999999)).status).toBe(201);
      expect((await deposit(w.id, 0.000001)).status).toBe(201);
      const past = await deposit(w.id, 0.000001);
      expect(past.status).toBe(422);
      expect(past.body.error).toMatchObject({
        code: 'amount_too_large',
        message: expect.stringMatching(/balance/),
      });

      expect(await wallet(w.id)).toMatchObject({ balance: 1_000_000_000, availableBalance: 1_000_000_000 });
      const updates = await events(userId, 'balance.updated');
      expect(updates.map((e: { data: { balance: number } }) => e.data.balance).sort()).toEqual([
        1_000_000_000, 999_999_999.999999,
      ]);
      // The balance is the sum of the postings, in the minor units the confirmations carry.
      const confirmed = await events(userId, 'blockchainTransaction.confirmed');
      expect(confirmed.map((e: { data: { amount: number } }) => e.data.amount).sort()).toEqual([
        1, 999_999_999_999_999,
      ]);
    });

    it('under 30 concurrent deposits at the limit, credits exactly what fits and refuses the rest, changing nothing', async () => {
      const { userId, wallet: w } = await activatedUserWallet();
      expect((await deposit(w.id, 999_999_999.999995)).status).toBe(201);
      const answers = await Promise.all(Array.from({ length: 30 }, () => deposit(w.id, 0.000001)));
      const statuses = answers.map((answer) => answer.status);
      expect(statuses.filter((status) => status === 201)).toHaveLength(5);
      expect(statuses.filter((status) => status !== 201).every((status) => status === 422)).toBe(true);
      expect(await wallet(w.id)).toMatchObject({ balance: 1_000_000_000, availableBalance: 1_000_000_000 });
      // The balance is the sum of the postings, in minor units as the confirmations carry them.
      // The confirmations reach the Events list once their consumer caught up with 30 concurrent writes.
      await waitFor(async () => (await events(userId, 'blockchainTransaction.confirmed')).length >= 6, {
        what: 'the 6 deposit confirmations in the Events list',
        intervalMs: 50,
      });
      const confirmed = await events(userId, 'blockchainTransaction.confirmed');
      const postings = confirmed.map((e: { data: { amount: number } }) => BigInt(e.data.amount));
      expect(postings).toHaveLength(6);
      expect(postings.reduce((sum: bigint, amount: bigint) => sum + amount, 0n)).toBe(10n ** 15n);
    });

    it('is sandbox only, and another distributor’s wallet is not found', async () => {
      const { wallet: w } = await activatedUserWallet();
      const production = await deposit(w.id, 1, PRODUCTION_KEY);
      expect(production.status).toBe(403);
      expect(production.body.error.code).toBe('sandbox_only');
      const other = await h.newDistributor();
      expect((await deposit(w.id, 1, other.sandboxKey)).status).toBe(404);
      expect((await wallet(w.id)).balance).toBe(0);
    });
  });

  describe('withdrawals (prepaid programs)', () => {
    it('pays out, debits the wallet and sends withdrawal.confirmed with the receipt', async () => {
      const { userId, wallet: w } = await activatedUserWallet();
      await deposit(w.id, 50);
      const response = await withdraw(w.id, { amount: 20.25, toAddress: RECEIVER });
      expect(response.status).toBe(201);
      expect(response.body).toMatchObject({
        walletId: w.id,
        type: 'withdrawal',
        amount: 20.25,
        toAddress: RECEIVER,
      });

      await payoutSettled(response.body.id);
      const done = (await h.http.get(`/v1/transactions/${response.body.id}`).set(sandbox)).body;
      expect(done).toMatchObject({
        status: 'completed',
        transactionHash: expect.stringMatching(/^0x[0-9a-f]{64}$/),
      });
      expect(await wallet(w.id)).toMatchObject({ balance: 29.75, availableBalance: 29.75, pendingHolds: 0 });

      const [confirmed] = await events(userId, 'withdrawal.confirmed');
      expect(confirmed).toMatchObject({ eventTargetId: response.body.id });
      expect(confirmed.data).toMatchObject({ hash: done.transactionHash, blockHeight: done.blockNumber });
      expect(JSON.parse(confirmed.data.rawTxReceipt)).toMatchObject({
        transactionHash: done.transactionHash,
        status: 'success',
      });
      const onChain = await events(userId, 'blockchainTransaction.confirmed');
      expect(
        onChain.map((e: { data: { type: string; amount: number } }) => [e.data.type, e.data.amount]).sort(),
      ).toEqual([
        ['deposit', 50_000_000],
        ['withdraw', 20_250_000],
      ]);
    });

    it('pays one withdrawal sent under one idempotency key, whatever spelling of its path each retry uses', async () => {
      const { wallet: w } = await activatedUserWallet();
      await deposit(w.id, 50);
      const body = { amount: 5, toAddress: RECEIVER };
      const headers = { ...sandbox, ...json, 'x-idempotency-key': `spellings-${w.id}` };
      const encoded = w.id.replace('-', '%2D');
      const answers = [];
      for (const path of [
        `/v1/wallets/${w.id}/withdrawals`,
        `/v1/wallets/${w.id}/withdrawals/`,
        `/v1/wallets/${encoded}/withdrawals`,
        `/v1/%77allets/${w.id}/withdrawals`,
      ]) {
        answers.push(await h.http.post(path).set(headers).send(body));
      }
      expect(answers.map((a) => a.status)).toEqual([201, 201, 201, 201]);
      expect(answers.slice(1).map((a) => a.headers['x-idempotent-replayed'])).toEqual([
        'true',
        'true',
        'true',
      ]);
      expect(new Set(answers.map((a) => a.body.id)).size).toBe(1);

      await payoutSettled(answers[0].body.id);
      const withdrawals = await h.http
        .get('/v1/transactions')
        .query({ walletId: w.id, type: 'withdrawal' })
        .set(sandbox);
      expect(withdrawals.body.count).toBe(1);
      expect(await wallet(w.id)).toMatchObject({ balance: 45, pendingHolds: 0 });
    });

    it('frees the amount when the payout is rejected, with withdrawal.rejected and its reason', async () => {
      const { userId, wallet: w } = await activatedUserWallet();
      await deposit(w.id, 10);
      const response = await withdraw(w.id, {
        amount: 10,
        toAddress: '0x0000000000000000000000000000000000000000',
      });
      expect(response.status).toBe(201);
      await payoutSettled(response.body.id);
      expect((await h.http.get(`/v1/transactions/${response.body.id}`).set(sandbox)).body).toMatchObject({
        status: 'rejected',
        reason: expect.stringContaining('zero address'),
      });
      expect(await wallet(w.id)).toMatchObject({ balance: 10, availableBalance: 10, pendingHolds: 0 });
      const [rejected] = await events(userId, 'withdrawal.rejected');
      expect(rejected.data).toMatchObject({ reason: expect.stringContaining('zero address'), hash: null });
    });

    it('refuses more than the available balance (422), bad amounts and addresses (400), and changes nothing', async () => {
      const { wallet: w } = await activatedUserWallet();
      await deposit(w.id, 5);
      const tooMuch = await withdraw(w.id, { amount: 5.000001, toAddress: RECEIVER });
      expect(tooMuch.status).toBe(422);
      expect(tooMuch.body.error.code).toBe('insufficient_funds');
      expect((await withdraw(w.id, { amount: 1.1234567, toAddress: RECEIVER })).status).toBe(400);
      const badAddress = await withdraw(w.id, { amount: 1, toAddress: '0x1234' });
      expect(badAddress.status).toBe(400);
      expect(badAddress.body.error.details).toEqual([expect.objectContaining({ field: 'toAddress' })]);
      expect(await wallet(w.id)).toMatchObject({ balance: 5, availableBalance: 5 });
      const listed = await h.http
        .get('/v1/transactions')
        .query({ walletId: w.id, type: 'withdrawal' })
        .set(sandbox);
      expect(listed.body.count).toBe(0);
    });

    it('answers 403 forbidden to a program that is not prepaid', async () => {
      const other = await h.newDistributor({ prepaid: false });
      const { wallet: w } = await activatedUserWallet(other.sandboxKey);
      await deposit(w.id, 5, other.sandboxKey);
      const response = await withdraw(w.id, { amount: 1, toAddress: RECEIVER }, other.sandboxKey);
      expect(response.status).toBe(403);
      expect(response.body.error.code).toBe('forbidden');
      expect(await wallet(w.id, other.sandboxKey)).toMatchObject({ balance: 5, availableBalance: 5 });
    });

    it('blocks withdrawals under a compliance hold (409), with status-change Events both ways', async () => {
      const { userId, wallet: w } = await activatedUserWallet();
      await deposit(w.id, 5);
      await operatorHold(w.id, 'place', 'AML review');
      const blocked = await withdraw(w.id, { amount: 1, toAddress: RECEIVER });
      expect(blocked.status).toBe(409);
      expect(blocked.body.error.code).toBe('wallet_compliance_hold');
      expect((await wallet(w.id)).complianceHold).toMatchObject({ reason: 'AML review' });
      await operatorHold(w.id, 'release', 'cleared');
      expect((await withdraw(w.id, { amount: 1, toAddress: RECEIVER })).status).toBe(201);
      expect(await events(userId, 'wallet.complianceHoldPlaced')).toHaveLength(1);
      expect(await events(userId, 'wallet.complianceHoldReleased')).toHaveLength(1);
    });
  });

  describe('transactions', () => {
    it('lists a user’s movements, filtered by user and type, newest first', async () => {
      const { userId, wallet: w } = await activatedUserWallet();
      const first = await deposit(w.id, 1);
      const second = await deposit(w.id, 2);
      const listed = await h.http.get('/v1/transactions').query({ userId, type: 'deposit' }).set(sandbox);
      expect(listed.body).toMatchObject({ page: 0, count: 2, hasMore: false });
      expect(listed.body.items.map((t: { id: string }) => t.id)).toEqual([second.body.id, first.body.id]);
      expect((await h.http.get('/v1/transactions').query({ type: 'nope' }).set(sandbox)).status).toBe(400);
      expect((await h.http.get('/v1/transactions/txn-nope').set(sandbox)).status).toBe(404);
    });
  });
});
