import { ConsumerHost } from '@cip/shared/infrastructure';
import { CLEARING_FILE_SINK, type ClearingFile, type ClearingFileSink } from '@cip/simulator/contract';
import { waitFor } from '@cip/shared/testing';
import { activeUserWithWallet, distributorCalls, issuerLinked } from './testing/cardholders';
import { Harness, startHarness } from './testing/platform-harness';
import { itOnOneProcess } from './testing/topology';

// Clearing through the sandbox: POST /v1/simulate/authorization/clearing cuts a clearing file, which the
// simulator hands to the platform's clearing importer (CLEARING_FILE_SINK, the authorizations context).

describe('clearing files from the sandbox card network to the issuer', () => {
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

  /** A card of its own whose wallet tells when the ledger saga has caught up (split topology). */
  let sentinel: Promise<{ cardId: string; walletId: string }> | undefined;
  /**
   * Every clearing and reversal so far has reached the wallets (the ledger saga, in the authorizations
   * service, posts them). In process: the consumers drained. On split, where no test reaches the consumers:
   * the saga reads the log in order, so once a force post cleared now on the sentinel's card has reached the
   * sentinel's wallet, everything before it has reached its wallet too (and lists settle their own views).
   */
  const settle = async () => {
    if (h.topology === 'one-process') {
      await h.platform.app.get(ConsumerHost).drain('sandbox');
      await h.platform.app.get(ConsumerHost).drain('sandbox');
      return;
    }
    const { cardId, walletId } = await (sentinel ??= fundedCard(1000));
    const balance = async () => (await get(`/v1/wallets/${walletId}`)).body.balance as number;
    const before = await balance();
    await clear({ cardId, amount: 0.01, currency: 'USD', merchant });
    await waitFor(async () => (await balance()) < before, {
      what: "the sentinel's force post in its wallet (the ledger saga caught up)",
      intervalMs: 50,
    });
  };

  async function fundedCard(amount: number) {
    const holder = await activeUserWithWallet(h);
    const card = await post('/v1/cards', { userId: holder.userId, type: 'virtual' });
    expect(card.status).toBe(201);
    expect((await post('/v1/simulate/deposit', { walletId: holder.walletId, amount })).status).toBe(201);
    return { ...holder, cardId: card.body.id as string };
  }

  async function authorize(cardId: string, amount: number, currency = 'USD'): Promise<string> {
    const response = await post('/v1/simulate/authorization', { cardId, amount, currency, merchant });
    expect(response.status).toBe(200);
    expect(response.body.network).toMatchObject({ responseCode: '00', advice: null });
    return response.body.authorization.id;
  }

  async function clear(body: object): Promise<ClearingFile> {
    const response = await post('/v1/simulate/authorization/clearing', body);
    expect(response.status).toBe(200);
    expect(response.body.delivered).toBe(true);
    return response.body.file;
  }

  async function reverse(authorizationId: string, amount?: number) {
    return post('/v1/simulate/authorization/reversal', {
      authorizationId,
      ...(amount === undefined ? {} : { amount }),
    });
  }

  /** The wallet's figures in minor units (the API's USD numbers, exact to the micro-unit). */
  const ledgerOf = async (walletId: string) => {
    const { balance, availableBalance } = await walletOf(walletId);
    const minor = (usd: number) => Math.round(usd * 1_000_000);
    return { balance: minor(balance), held: minor(balance) - minor(availableBalance) };
  };
  const transactionsOf = async (walletId: string) => {
    await settle();
    const listed = await get('/v1/transactions', { walletId, limit: '100' });
    expect(listed.status).toBe(200);
    return listed.body.items as Array<{ type: string; status: string; amount: number; reference: string }>;
  };

  const walletOf = async (walletId: string) => {
    await settle();
    return (await get(`/v1/wallets/${walletId}`)).body as { balance: number; availableBalance: number };
  };
  const authorizationOf = async (authorizationId: string) => {
    await settle();
    return (await get(`/v1/authorizations/${authorizationId}`)).body;
  };
  const clearedEvents = async (userId: string) => {
    await settle();
    return (await get('/v1/events', { userId, eventName: 'cardAuthorization.cleared' })).body.items;
  };

  it('clears an authorization in full: cardAuthorization.cleared, status cleared, the wallet debited, the hold gone', async () => {
    const holder = await fundedCard(100);
    const authorizationId = await authorize(holder.cardId, 25);
    expect(await walletOf(holder.walletId)).toMatchObject({ balance: 100, availableBalance: 75 });

    const file = await clear({ authorizationId });
    expect(file.presentments).toEqual([expect.objectContaining({ kind: 'presentment', amountMinor: 2500 })]);

    expect(await authorizationOf(authorizationId)).toMatchObject({
      status: 'cleared',
      amount: 25,
      clearedAmount: 25,
    });
    expect(await walletOf(holder.walletId)).toMatchObject({ balance: 75, availableBalance: 75 });
    expect(await clearedEvents(holder.userId)).toEqual([
      expect.objectContaining({ eventTargetId: authorizationId }),
    ]);
  });

  it('clears in parts: partially cleared with the rest held, then cleared by the last part', async () => {
    const holder = await fundedCard(100);
    const authorizationId = await authorize(holder.cardId, 25);

    await clear({ authorizationId, amount: 10 });
    expect(await authorizationOf(authorizationId)).toMatchObject({
      status: 'partially_cleared',
      clearedAmount: 10,
    });
    expect(await walletOf(holder.walletId)).toMatchObject({ balance: 90, availableBalance: 75 });

    await clear({ authorizationId, amount: 15 });
    expect(await authorizationOf(authorizationId)).toMatchObject({ status: 'cleared', clearedAmount: 25 });
    expect(await walletOf(holder.walletId)).toMatchObject({ balance: 75, availableBalance: 75 });
    expect(await clearedEvents(holder.userId)).toHaveLength(2);
  });

  itOnOneProcess(
    'delivers the file again through the in-process clearing sink (no /v1 or operator way re-imports one)',
    'changes nothing when the same file is imported again',
    async () => {
      const holder = await fundedCard(100);
      const authorizationId = await authorize(holder.cardId, 25);
      const file = await clear({ authorizationId, amount: 10 });
      const before = await authorizationOf(authorizationId);

      await h.platform.app.get<ClearingFileSink>(CLEARING_FILE_SINK).deliver('sandbox', file);

      expect(await authorizationOf(authorizationId)).toEqual(before);
      expect(await walletOf(holder.walletId)).toMatchObject({ balance: 90, availableBalance: 75 });
      expect(await clearedEvents(holder.userId)).toHaveLength(1);
    },
  );

  it('debits the wallet for a force post without authorization', async () => {
    const holder = await fundedCard(100);
    const file = await clear({ cardId: holder.cardId, amount: 7.25, currency: 'USD', merchant });
    expect(file.presentments).toEqual([expect.objectContaining({ kind: 'force_post' })]);

    expect(await walletOf(holder.walletId)).toMatchObject({ balance: 92.75, availableBalance: 92.75 });
    const [event] = await clearedEvents(holder.userId);
    expect(await authorizationOf(event.eventTargetId)).toMatchObject({
      cardId: holder.cardId,
      status: 'cleared',
      clearedAmount: 7.25,
    });
  });

  it('answers 409 saying why, and changes nothing, to a reversal or a second clearing of a fully cleared authorization', async () => {
    const holder = await fundedCard(100);
    const authorizationId = await authorize(holder.cardId, 25);
    await clear({ authorizationId });
    const cleared = await authorizationOf(authorizationId);
    expect(cleared).toMatchObject({ status: 'cleared', clearedAmount: 25, reversedAmount: 0 });
    expect(await walletOf(holder.walletId)).toMatchObject({ balance: 75, availableBalance: 75 });
    const refusal = (response: { status: number; body: { error?: { code: string; message: string } } }) => [
      response.status,
      response.body.error?.code,
      response.body.error?.message,
    ];

    // The issuer answers the 0400 12 (it holds nothing any more); the sandbox says why. A partial reversal
    // after it hears the same reason (the refused reversal was not booked as one), and so does a repeat.
    const nothingHeld = [
      409,
      'invalid_state_transition',
      `Authorization ${authorizationId} is cleared: nothing is held to reverse`,
    ];
    expect(refusal(await reverse(authorizationId))).toEqual(nothingHeld);
    expect(refusal(await reverse(authorizationId, 5))).toEqual(nothingHeld);
    expect(refusal(await reverse(authorizationId))).toEqual(nothingHeld);

    // A second presentment, in full or in part: 409 before any file is cut, not a silent operator exception.
    for (const body of [{ authorizationId }, { authorizationId, amount: 5 }]) {
      const again = await post('/v1/simulate/authorization/clearing', body);
      expect(refusal(again)).toEqual([
        409,
        'invalid_state_transition',
        `Authorization ${authorizationId} is cleared already`,
      ]);
    }

    expect(await authorizationOf(authorizationId)).toEqual(cleared);
    expect(await walletOf(holder.walletId)).toMatchObject({ balance: 75, availableBalance: 75 });
    expect(await clearedEvents(holder.userId)).toHaveLength(1);
    const reversedEvents = await get('/v1/events', {
      userId: holder.userId,
      eventName: 'cardAuthorization.reversed',
    });
    expect(reversedEvents.body.items).toEqual([]);
  });

  it('answers 409 "already fully reversed" to a clearing or a reversal of a reversed authorization', async () => {
    const holder = await fundedCard(100);
    const authorizationId = await authorize(holder.cardId, 25);
    expect((await reverse(authorizationId)).status).toBe(200);
    const reversed = await authorizationOf(authorizationId);
    expect(reversed).toMatchObject({ status: 'reversed', reversedAmount: 25 });

    const again = await reverse(authorizationId, 5);
    expect([again.status, again.body.error.code]).toEqual([409, 'invalid_state_transition']);
    expect(again.body.error.message).toContain('already fully reversed');
    const clearing = await post('/v1/simulate/authorization/clearing', { authorizationId });
    expect([clearing.status, clearing.body.error.code, clearing.body.error.message]).toEqual([
      409,
      'invalid_state_transition',
      `Authorization ${authorizationId} was reversed: nothing can clear`,
    ]);
    expect(await authorizationOf(authorizationId)).toEqual(reversed);
    expect(await walletOf(holder.walletId)).toMatchObject({ balance: 100, availableBalance: 100 });
  });

  it('records a line beyond the tolerance as an exception for operators and changes nothing', async () => {
    const holder = await fundedCard(100);
    const authorizationId = await authorize(holder.cardId, 25);
    const before = await authorizationOf(authorizationId);
    // The importer's metrics: the authorizations service's /metrics (the platform's own when one process).
    const exceptions = async () =>
      (await (await fetch(`${h.systemUrl('authorizations')}/metrics`)).text())
        .split('\n')
        .find((line) => line.startsWith('authorization_clearing_lines_total') && line.includes('"exception"'))
        ?.split(' ')
        .pop() ?? '0';
    const counted = Number(await exceptions());

    await clear({ authorizationId, amount: 90 });

    expect(await authorizationOf(authorizationId)).toEqual(before);
    expect(await walletOf(holder.walletId)).toMatchObject({ balance: 100, availableBalance: 75 });
    expect(Number(await exceptions())).toBe(counted + 1);
  });
  it('clears in parts around a partial reversal, the wallet exact to the minor unit after each step, the last part with a tip within the tolerance', async () => {
    const USD = 1_000_000;
    const holder = await fundedCard(100);
    // 25 EUR at 1.08: 27.00 USD and a 2% fx fee of 0.54 USD, held together.
    const authorizationId = await authorize(holder.cardId, 25, 'EUR');
    expect(await ledgerOf(holder.walletId)).toEqual({ balance: 100 * USD, held: 27_540_000 });

    // 10 EUR = 10.80 USD cleared, the fee charged once: the hold keeps the other 16.20 USD, no fee.
    await clear({ authorizationId, amount: 10 });
    expect(await ledgerOf(holder.walletId)).toEqual({ balance: 88_660_000, held: 16_200_000 });
    expect(await authorizationOf(authorizationId)).toMatchObject({
      status: 'partially_cleared',
      clearedAmount: 10.8,
    });
    // One card payment, pending for what has cleared so far, and its fee; the wallet announced each change.
    const pending = await transactionsOf(holder.walletId);
    expect(pending.filter((t) => t.type === 'authorization')).toEqual([
      expect.objectContaining({ status: 'pending', amount: 10.8, reference: authorizationId }),
    ]);
    expect(pending.filter((t) => t.type === 'fee')).toEqual([
      expect.objectContaining({ status: 'completed', amount: 0.54 }),
    ]);
    const balanceUpdates = async () =>
      (await get('/v1/events', { userId: holder.userId, eventName: 'balance.updated', limit: '100' })).body
        .items.length as number;
    const updatesAfterClearing = await balanceUpdates();

    // 5 EUR of what is still held reversed.
    expect((await reverse(authorizationId, 5)).status).toBe(200);
    expect(await ledgerOf(holder.walletId)).toEqual({ balance: 88_660_000, held: 10_800_000 });
    expect(await balanceUpdates()).toBe(updatesAfterClearing + 1);

    // The rest with a tip: 15 EUR = 16.20 USD, 5.40 USD above what is held, exactly the 20% tolerance.
    await clear({ authorizationId, amount: 15 });
    expect(await ledgerOf(holder.walletId)).toEqual({ balance: 72_460_000, held: 0 });
    expect(await authorizationOf(authorizationId)).toMatchObject({
      status: 'cleared',
      clearedAmount: 27,
      reversedAmount: 5.4,
    });
    // The list shows one card payment completed for all its clearings, and the fee once.
    const transactions = await transactionsOf(holder.walletId);
    expect(transactions.filter((t) => t.type === 'authorization')).toEqual([
      expect.objectContaining({ status: 'completed', amount: 27, reference: authorizationId }),
    ]);
    expect(transactions.filter((t) => t.type === 'fee')).toEqual([
      expect.objectContaining({ status: 'completed', amount: 0.54 }),
    ]);
    expect(await clearedEvents(holder.userId)).toHaveLength(2);
  });

  it('takes the wallet negative by the tip of a last clearing within the tolerance, and refuses one beyond it', async () => {
    const holder = await fundedCard(25);
    const authorizationId = await authorize(holder.cardId, 25);
    await clear({ authorizationId, amount: 20 });
    expect(await ledgerOf(holder.walletId)).toEqual({ balance: 5_000_000, held: 5_000_000 });

    // 20 + 10.01 is beyond 25 and its 20% (5): an exception, nothing changes.
    await clear({ authorizationId, amount: 10.01 });
    expect(await ledgerOf(holder.walletId)).toEqual({ balance: 5_000_000, held: 5_000_000 });
    expect(await authorizationOf(authorizationId)).toMatchObject({
      status: 'partially_cleared',
      clearedAmount: 20,
    });

    await clear({ authorizationId, amount: 10 });
    expect(await ledgerOf(holder.walletId)).toEqual({ balance: -5_000_000, held: 0 });
    expect(await authorizationOf(authorizationId)).toMatchObject({ status: 'cleared', clearedAmount: 30 });
  });

  it('keeps the wallet equal to what its authorizations cleared and hold under concurrent partial clearings and reversals', async () => {
    const USD = 1_000_000;
    const holder = await fundedCard(1000);
    const authorizations: string[] = [];
    for (let i = 0; i < 6; i++) authorizations.push(await authorize(holder.cardId, 50));
    // All at once on one wallet: per authorization three partial clearings of 10, a partial reversal of 5
    // and a full reversal, racing each other (a clearing recorded before a reversal closed the hold may
    // reach the wallet after it: it must still be posted, in its order).
    // A clearing after the full reversal finds nothing to clear (409), a reversal after it nothing to reverse.
    const clearOrRefused = async (authorizationId: string) => {
      const response = await post('/v1/simulate/authorization/clearing', { authorizationId, amount: 10 });
      expect([200, 409]).toContain(response.status);
    };
    await Promise.all(
      authorizations.flatMap((authorizationId) => [
        clearOrRefused(authorizationId),
        clearOrRefused(authorizationId),
        clearOrRefused(authorizationId),
        reverse(authorizationId, 5),
        reverse(authorizationId),
      ]),
    );
    let cleared = 0;
    for (const authorizationId of authorizations) {
      const authorization = await authorizationOf(authorizationId);
      // The full reversal released whatever was held when it came: nothing is held any more.
      expect(['reversed', 'cleared']).toContain(authorization.status);
      expect(authorization.clearedAmount + authorization.reversedAmount).toBe(50);
      cleared += Math.round(authorization.clearedAmount * USD);
    }
    expect(await ledgerOf(holder.walletId)).toEqual({ balance: 1000 * USD - cleared, held: 0 });
    const payments = (await transactionsOf(holder.walletId)).filter((t) => t.type === 'authorization');
    expect(payments).toHaveLength(authorizations.length);
    expect(payments.every((t) => t.status === 'completed' || t.status === 'released')).toBe(true);
  });
});
