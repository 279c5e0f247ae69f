import { AUTHORIZATIONS_API, type AuthorizationsApi } from '@cip/authorizations/contract';
import { ConsumerHost } from '@cip/shared/infrastructure';
import { encryptPinBlock, F, IsoMessage, IsoServer, pinBlockFormat0, SANDBOX_ZPK } from '@cip/shared/iso8583';
import { ManualClock } from '@cip/shared/runtime';
import { waitFor } from '@cip/shared/testing';
import { readFileSync } from 'node:fs';
import {
  activeUserWithWallet,
  distributorCalls,
  filesUnder,
  setCardPin,
  vaultSecretsOf,
} from './testing/cardholders';
import { Harness, SANDBOX_KEY, startHarness } from './testing/platform-harness';
import { itOnOneProcess } from './testing/topology';

// The issuer side of the card network over a real loopback link: the test's IsoServer plays the network
// (as the simulator does) and sends real 0100, 0120 and 0400 messages; the platform answers as the issuer.
// What is checked is what the network and the distributor see: the response codes, the authorizations at
// /v1/authorizations, the public Events and the wallet's balance.

const DAY_MS = 24 * 60 * 60 * 1000;
const ACQUIRER = '12345678';

interface Card {
  cardId: string;
  userId: string;
  walletId: string;
  pan: string;
  cvv2: string;
  expiry: string;
}

describe('card authorizations over the ISO 8583 link', () => {
  let h: Harness;
  let network: IsoServer;
  const clock = new ManualClock('2026-11-23T10:00:00.000Z');
  const { post, get } = distributorCalls(() => h);
  let stan = 0;
  /** Every PAN the network sent: none may appear in a response, an event, a read model or a log. */
  const pans: string[] = [];
  const bodies: string[] = [];

  beforeAll(async () => {
    network = new IsoServer({ requestTimeoutMs: 20_000 });
    const port = await network.listen(0);
    // The test's clock (the hold expiry test moves it; on the split topology every process reads it) and its
    // network, which the issuer (of the authorizations service, on split) links to.
    const cardNetwork = { host: '127.0.0.1', port };
    h = await startHarness({ clock, cardNetwork });
    await waitFor(() => network.connections.size === 1, { what: 'the issuer connected to the network' });
  });
  afterAll(async () => {
    await h?.close();
    await network?.close();
  });

  // Twice: the projections, then the Events recorder that reads their snapshots. Split: the lists and
  // reads of /v1 are read-your-writes (the gateway catches up with the log first).
  const settle = async () => {
    if (h.topology === 'split') return;
    await h.platform.app.get(ConsumerHost).drain('sandbox');
    await h.platform.app.get(ConsumerHost).drain('sandbox');
  };

  /** The time the platform decided at, sent at `before` and answered at `after` (the test's clock: both). */
  const expectDecidedBetween = (decidedAt: unknown, before: Date, after: Date) => {
    const at = Date.parse(decidedAt as string);
    expect(at).toBeGreaterThanOrEqual(before.getTime());
    expect(at).toBeLessThanOrEqual(after.getTime());
  };
  const now = () => clock.now();

  async function fundedCard(usd: number): Promise<Card> {
    const holder = await activeUserWithWallet(h);
    const card = await post('/v1/cards', { userId: holder.userId, type: 'virtual' });
    expect(card.status).toBe(201);
    if (usd > 0) {
      const deposit = await post('/v1/simulate/deposit', { walletId: holder.walletId, amount: usd });
      expect(deposit.status).toBe(201);
    }
    const { pan, cvv2, expMonth, expYear } = await vaultSecretsOf(h, card.body.id);
    pans.push(pan);
    const expiry = `${String(expYear).slice(2)}${String(expMonth).padStart(2, '0')}`;
    return { cardId: card.body.id, userId: holder.userId, walletId: holder.walletId, pan, cvv2, expiry };
  }

  const nextStan = () => String(++stan).padStart(6, '0');
  const rrnOf = (s: string) => `332710${s}`;

  /** An 0100 (or 0120) as an acquirer sends it through the network: USD cents unless `currency`. */
  function authorization(
    card: Card,
    cents: number,
    options: {
      mti?: '0100' | '0120';
      mcc?: string;
      cvv2?: string;
      pin?: string;
      currency?: string;
      stan?: string;
      rrn?: string;
      fields?: Record<number, string>;
    } = {},
  ): IsoMessage {
    const s = options.stan ?? nextStan();
    return new IsoMessage(options.mti ?? '0100', {
      [F.PAN]: card.pan,
      [F.PROCESSING_CODE]: '000000',
      [F.AMOUNT_TRANSACTION]: String(cents).padStart(12, '0'),
      [F.TRANSMISSION_DATE_TIME]: '1123100000',
      [F.STAN]: s,
      [F.LOCAL_TIME]: '100000',
      [F.LOCAL_DATE]: '1123',
      [F.EXPIRY]: card.expiry,
      [F.MCC]: options.mcc ?? '5812',
      [F.POS_ENTRY_MODE]: '812',
      [F.POS_CONDITION_CODE]: '59',
      [F.ACQUIRING_INSTITUTION_ID]: ACQUIRER,
      [F.RRN]: options.rrn ?? rrnOf(s),
      [F.TERMINAL_ID]: 'TERM0001',
      [F.MERCHANT_ID]: 'MERCHANT0000001',
      [F.CARD_ACCEPTOR_NAME_LOCATION]: `${'CORNER CAFE'.padEnd(25)}${'PARIS'.padEnd(13)}FR`,
      [F.CURRENCY_TRANSACTION]: options.currency ?? '840',
      [F.CVV2]: options.cvv2,
      // DE-052 as the network sends it: under the ZPK (the sandbox's, the platform's default).
      [F.PIN_DATA]: options.pin
        ? encryptPinBlock(pinBlockFormat0(options.pin, card.pan), SANDBOX_ZPK)
        : undefined,
      ...options.fields,
    });
  }

  function reversal(original: IsoMessage, options: { newTotalCents?: number; mti?: '0400' | '0420' } = {}) {
    const s = nextStan();
    return new IsoMessage(options.mti ?? '0400', {
      [F.PAN]: original.get(F.PAN),
      [F.PROCESSING_CODE]: '000000',
      [F.AMOUNT_TRANSACTION]: original.get(F.AMOUNT_TRANSACTION),
      [F.TRANSMISSION_DATE_TIME]: '1123100100',
      [F.STAN]: s,
      [F.EXPIRY]: original.get(F.EXPIRY),
      [F.ACQUIRING_INSTITUTION_ID]: ACQUIRER,
      [F.RRN]: original.get(F.RRN),
      [F.CURRENCY_TRANSACTION]: original.get(F.CURRENCY_TRANSACTION),
      [F.ORIGINAL_DATA_ELEMENTS]: `0100${original.get(F.STAN)}1123100000${ACQUIRER.padStart(11, '0')}${'0'.repeat(11)}`,
      [F.REPLACEMENT_AMOUNTS]:
        options.newTotalCents === undefined
          ? undefined
          : `${String(options.newTotalCents).padStart(12, '0')}${'0'.repeat(12)}C00000000C00000000`,
    });
  }

  const send = async (message: IsoMessage) => {
    const response = await network.request(message);
    return { code: response.get(F.RESPONSE_CODE), approval: response.get(F.APPROVAL_CODE), response };
  };

  const authorizationsOf = async (cardId: string) => {
    await settle();
    const listed = await get('/v1/authorizations', { cardId, limit: '100', sortBy: 'createdAt' });
    expect(listed.status).toBe(200);
    bodies.push(listed.text);
    return listed.body.items as Array<Record<string, unknown> & { id: string; status: string }>;
  };

  const walletOf = async (walletId: string) => {
    await settle();
    return (await get(`/v1/wallets/${walletId}`)).body as { balance: number; availableBalance: number };
  };

  it('approves a payment the wallet covers: 00 with an approval code, a hold, the authorization and its Event', async () => {
    const card = await fundedCard(100);
    const before = now();
    const { code, approval } = await send(authorization(card, 2550, { cvv2: card.cvv2 }));
    const after = now();
    expect(code).toBe('00');
    expect(approval).toMatch(/^[0-9A-F]{6}$/);

    const [authorized] = await authorizationsOf(card.cardId);
    expect(authorized).toMatchObject({
      cardId: card.cardId,
      userId: card.userId,
      walletId: card.walletId,
      type: 'payment',
      status: 'confirmed',
      decision: 'confirmed',
      merchantName: 'CORNER CAFE',
      merchantMcc: '5812',
      merchant: { name: 'CORNER CAFE', city: 'PARIS', country: 'FR', mcc: '5812', mid: 'MERCHANT0000001' },
      amount: 25.5,
      currency: 'USD',
      merchantAmount: '25.50',
      merchantCurrency: 'USD',
      fee: {},
    });
    expectDecidedBetween(authorized.decidedAt, before, after);
    expect(authorized.expiresAt).toBe(
      new Date(Date.parse(authorized.decidedAt as string) + 7 * DAY_MS).toISOString(),
    );
    expect((await get(`/v1/authorizations/${authorized.id}`)).body).toEqual(authorized);
    expect(await walletOf(card.walletId)).toMatchObject({ balance: 100, availableBalance: 74.5 });

    const events = (
      await get('/v1/events', { userId: card.userId, eventName: 'cardAuthorization.confirmed' })
    ).body.items;
    expect(events).toEqual([
      expect.objectContaining({
        eventTargetId: authorized.id,
        data: expect.objectContaining({
          cardId: card.cardId,
          merchantName: 'CORNER CAFE',
          merchantMcc: '5812',
          amount: 25.5,
          currency: 'USD',
          merchantAmount: '25.50',
          merchantCurrency: 'USD',
          merchant: expect.objectContaining({ name: 'CORNER CAFE', mcc: '5812' }),
          type: 'payment',
          fee: {},
          decidedAt: authorized.decidedAt,
        }),
      }),
    ]);
  });

  itOnOneProcess(
    'the authorizations contract in process',
    'finds an authorization by its network reference (acquirer and RRN), as clearing does',
    async () => {
      const card = await fundedCard(100);
      expect((await send(authorization(card, 1000))).code).toBe('00');
      const [authorized] = await authorizationsOf(card.cardId);
      const api = h.platform.app.get<AuthorizationsApi>(AUTHORIZATIONS_API);
      const caller = {
        distributorId: h.platform.distributorId,
        environment: 'sandbox' as const,
        requestId: 'req-test',
        program: { allowedCountries: [], b2b: false, prepaid: false, kycImportEnabled: false },
      };
      const rrn = rrnOf(String(stan).padStart(6, '0'));
      expect(await api.findByNetworkReference(caller, { acquirerId: ACQUIRER, rrn })).toMatchObject({
        id: authorized.id,
      });
      expect(
        await api.findByNetworkReference(caller, { acquirerId: ACQUIRER, rrn: '999999999999' }),
      ).toBeNull();
    },
  );

  it('converts a foreign amount at the program rate with its fx fee', async () => {
    const card = await fundedCard(100);
    expect((await send(authorization(card, 1000, { currency: '978' }))).code).toBe('00');
    const [authorized] = await authorizationsOf(card.cardId);
    // 10.00 EUR at 1.08 USD = 10.80 USD; the 2% fx fee is 0.216 USD, rounded half up to the cent: 0.22.
    expect(authorized).toMatchObject({
      amount: 10.8,
      merchantAmount: '10.00',
      merchantCurrency: 'EUR',
      fee: { fx: 220000 },
    });
    expect(await walletOf(card.walletId)).toMatchObject({ availableBalance: 88.98 }); // 100 - 10.80 - 0.22
  });

  const wrongCvv2 = (card: Card) => String((Number(card.cvv2) + 1) % 1000).padStart(3, '0');

  it.each([
    ['funds', '51', 'insufficientFund', () => ({}), 20_000, undefined],
    ['a blocked MCC group (quasi cash)', '57', 'failedControl', () => ({ mcc: '6051' }), 1000, undefined],
    ['a wrong CVV2', 'N7', 'other', (card: Card) => ({ cvv2: wrongCvv2(card) }), 1000, undefined],
    ['a wrong PIN (none set)', '55', 'other', () => ({ pin: '1234' }), 1000, undefined],
    // THB: ISO 4217, without a rate in the sandbox's defaults; the distributor tells it by declineDetail.
    [
      'a currency the program has no rate for',
      '05',
      'other',
      () => ({ currency: '764' }),
      1000,
      'currency_not_supported',
    ],
  ] as const)(
    'declines for %s: %s, rejected with %s, nothing held',
    async (_, code, reason, options, cents, declineDetail) => {
      const card = await fundedCard(100);
      expect((await send(authorization(card, cents, options(card)))).code).toBe(code);
      const [rejected] = await authorizationsOf(card.cardId);
      expect(rejected).toMatchObject({ status: 'rejected', decision: 'rejected', declineReasonCode: reason });
      expect(rejected.declineDetail).toBe(declineDetail);
      expect(await walletOf(card.walletId)).toMatchObject({ balance: 100, availableBalance: 100 });
      const events = (
        await get('/v1/events', { userId: card.userId, eventName: 'cardAuthorization.rejected' })
      ).body.items;
      expect(events).toEqual([
        expect.objectContaining({
          data: expect.objectContaining({
            declineReasonCode: reason,
            cardId: card.cardId,
            ...(declineDetail ? { declineDetail } : {}),
          }),
        }),
      ]);
    },
  );

  const dailyLimit = async (card: { cardId: string }, amount: number) => {
    const controls = await h.http
      .put(`/v1/cards/${card.cardId}/spending-controls`)
      .set({ 'x-api-key': SANDBOX_KEY, 'content-type': 'application/json' })
      .send({ limits: [{ amount, interval: 'daily' }] });
    expect(controls.status).toBe(200);
  };

  it("declines past the card's daily limit (61), counting the day's approved payments net of reversals", async () => {
    const card = await fundedCard(100);
    await dailyLimit(card, 30);
    const first = authorization(card, 2000);
    expect((await send(first)).code).toBe('00');
    expect((await send(authorization(card, 1500))).code).toBe('61');
    expect((await send(reversal(first, { newTotalCents: 1000 }))).code).toBe('00');
    expect((await send(authorization(card, 1500))).code).toBe('00');
    const statuses = (await authorizationsOf(card.cardId)).map((a) => [a.status, a.declineReasonCode]);
    expect(statuses).toEqual([
      ['confirmed', undefined],
      ['rejected', 'failedControl'],
      ['confirmed', undefined],
    ]);
  });

  it('approves exactly what a daily limit allows under 20 concurrent 0100s on one card, funds to spare', async () => {
    const card = await fundedCard(100);
    await dailyLimit(card, 30);
    // A card used from several terminals at once (a copied card, a burst of payments): the limit holds.
    const answers = await Promise.all(Array.from({ length: 20 }, () => send(authorization(card, 1000))));
    const codes = answers.map((answer) => answer.code);
    expect(codes.filter((code) => code === '00')).toHaveLength(3);
    expect(codes.filter((code) => code === '61')).toHaveLength(17);
    expect(await walletOf(card.walletId)).toMatchObject({ balance: 100, availableBalance: 70 });
  });

  it('declines a frozen card as notActive (62), an unknown card number with 14 and records nothing for it', async () => {
    const card = await fundedCard(100);
    expect((await post(`/v1/cards/${card.cardId}/freeze`)).status).toBe(200);
    expect((await send(authorization(card, 1000))).code).toBe('62');
    expect(await authorizationsOf(card.cardId)).toEqual([
      expect.objectContaining({ status: 'rejected', declineReasonCode: 'notActive' }),
    ]);

    const unknown = {
      ...card,
      pan: `${card.pan.slice(0, -4)}${String((Number(card.pan.slice(-4)) + 1) % 10_000).padStart(4, '0')}`,
    };
    expect((await send(authorization(unknown, 1000))).code).toBe('14');
    const wrongExpiry = { ...card, expiry: '2001' };
    expect((await send(authorization(wrongExpiry, 1000))).code).toBe('14');
  });

  it('checks a PIN against the vault, and blocks the card after three wrong CVV2 or PIN entries', async () => {
    const card = await fundedCard(100);
    await setCardPin(h, card.cardId, '4321');
    expect((await send(authorization(card, 1000, { pin: '4321' }))).code).toBe('00');
    for (let i = 0; i < 3; i++)
      expect((await send(authorization(card, 1000, { pin: '0000' }))).code).toBe('55');
    expect((await get(`/v1/cards/${card.cardId}`)).body).toMatchObject({ status: 'frozen' });
    // Blocked now: even the right PIN is declined as notActive.
    expect((await send(authorization(card, 1000, { pin: '4321' }))).code).toBe('62');
  });

  it('records a stand-in advice the network approved even into a negative balance (forced), acknowledging it', async () => {
    const card = await fundedCard(10);
    const advice = authorization(card, 2500, {
      mti: '0120',
      fields: { [F.RESPONSE_CODE]: '00', [F.APPROVAL_CODE]: 'STIP01', [F.ADVICE_REASON]: 'STIP:timeout' },
    });
    const first = await send(advice);
    expect(first.response.mti).toBe('0130');
    expect(first.code).toBe('00');
    // Store and forward: the network repeats the advice until acknowledged; the repeat changes nothing.
    expect((await send(advice)).code).toBe('00');
    expect(await authorizationsOf(card.cardId)).toEqual([
      expect.objectContaining({ status: 'confirmed', advice: 'stand_in', amount: 25 }),
    ]);
    expect(await walletOf(card.walletId)).toMatchObject({ balance: 10, availableBalance: -15 });
  });

  it('reverses in full (0400) and in part (0420 with the new total), releasing the hold', async () => {
    const card = await fundedCard(100);
    const full = authorization(card, 4000);
    expect((await send(full)).code).toBe('00');
    const partial = authorization(card, 3000);
    expect((await send(partial)).code).toBe('00');
    expect(await walletOf(card.walletId)).toMatchObject({ availableBalance: 30 });

    const fullReversal = reversal(full);
    expect((await send(fullReversal)).response.mti).toBe('0410');
    expect((await send(fullReversal)).code).toBe('00'); // a retry changes nothing
    expect((await send(reversal(partial, { newTotalCents: 1000, mti: '0420' }))).code).toBe('00');

    const [first, second] = await authorizationsOf(card.cardId);
    expect(first).toMatchObject({ status: 'reversed', reversedAmount: 40, amount: 40 });
    expect(second).toMatchObject({ status: 'confirmed', reversedAmount: 20, amount: 30 });
    expect(await walletOf(card.walletId)).toMatchObject({ balance: 100, availableBalance: 90 });
    const reversed = (
      await get('/v1/events', { userId: card.userId, eventName: 'cardAuthorization.reversed' })
    ).body.items;
    expect(reversed).toHaveLength(2);
  });

  it('answers a retried 0100 (same STAN and RRN) as the first time, with one hold; another STAN on the RRN is a duplicate (94)', async () => {
    const card = await fundedCard(100);
    const message = authorization(card, 1500);
    const first = await send(message);
    expect(first.code).toBe('00');
    // The network retries after its timeout: the same STAN and RRN.
    const again = await send(message);
    expect(again.code).toBe('00');
    expect(again.approval).toBe(first.approval);
    expect((await send(authorization(card, 1500, { rrn: message.get(F.RRN) }))).code).toBe('94');
    expect(await authorizationsOf(card.cardId)).toHaveLength(1);
    expect(await walletOf(card.walletId)).toMatchObject({ availableBalance: 85 });
  });

  it('decides a transaction once when two 0100s of its RRN (two STANs) arrive together: 00 and 94, one hold', async () => {
    const card = await fundedCard(100);
    for (let round = 0; round < 5; round++) {
      const first = authorization(card, 1000);
      const answers = await Promise.all([
        send(first),
        send(authorization(card, 1000, { rrn: first.get(F.RRN) })),
      ]);
      expect(answers.map((answer) => answer.code).sort()).toEqual(['00', '94']);
    }
    expect(await authorizationsOf(card.cardId)).toHaveLength(5);
    expect(await walletOf(card.walletId)).toMatchObject({ balance: 100, availableBalance: 50 });
  });

  it('approves exactly what the wallet covers under 50 concurrent 0100s, and the wallet holds their sum', async () => {
    const card = await fundedCard(100);
    const answers = await Promise.all(Array.from({ length: 50 }, () => send(authorization(card, 1000))));
    const codes = answers.map((answer) => answer.code);
    expect(codes.filter((code) => code === '00')).toHaveLength(10);
    expect(codes.filter((code) => code === '51')).toHaveLength(40);

    const authorizations = await authorizationsOf(card.cardId);
    expect(authorizations).toHaveLength(50);
    const confirmed = authorizations.filter((a) => a.status === 'confirmed');
    expect(confirmed).toHaveLength(10);
    const held = confirmed.reduce((sum, a) => sum + (a.amount as number), 0);
    const wallet = await walletOf(card.walletId);
    expect(wallet.balance).toBe(100);
    expect(wallet.balance - wallet.availableBalance).toBe(held);
    const events = (
      await get('/v1/events', { userId: card.userId, eventName: 'cardAuthorization.confirmed', limit: '100' })
    ).body.items;
    expect(events).toHaveLength(10);
  });

  it("expires an uncleared hold after the program's 7 days, releasing it (cardAuthorization.expired)", async () => {
    const card = await fundedCard(100);
    expect((await send(authorization(card, 2000))).code).toBe('00');
    clock.advance(7 * DAY_MS - 1);
    await h.sweepDue('authorizations');
    expect(await authorizationsOf(card.cardId)).toEqual([expect.objectContaining({ status: 'confirmed' })]);
    clock.advance(1);
    await h.sweepDue('authorizations');
    expect(await authorizationsOf(card.cardId)).toEqual([
      expect.objectContaining({ status: 'expired', expiresAt: null }),
    ]);
    expect(await walletOf(card.walletId)).toMatchObject({ balance: 100, availableBalance: 100 });
    const expired = (await get('/v1/events', { userId: card.userId, eventName: 'cardAuthorization.expired' }))
      .body.items;
    expect(expired).toEqual([
      expect.objectContaining({ data: expect.objectContaining({ expiredAmount: 20 }) }),
    ]);
  });

  it('lists by status and user, and keeps another distributor out', async () => {
    const card = await fundedCard(100);
    expect((await send(authorization(card, 1000))).code).toBe('00');
    expect((await send(authorization(card, 1000, { mcc: '6051' }))).code).toBe('57');
    await settle();
    const rejected = await get('/v1/authorizations', { userId: card.userId, status: 'rejected' });
    expect(rejected.body.items).toEqual([expect.objectContaining({ declineReasonCode: 'failedControl' })]);
    const other = await h.newDistributor();
    const theirs = await get('/v1/authorizations', { cardId: card.cardId }, other.sandboxKey);
    expect(theirs.body.items).toEqual([]);
    expect((await get(`/v1/authorizations/${rejected.body.items[0].id}`, {}, other.sandboxKey)).status).toBe(
      404,
    );
    expect((await get('/v1/authorizations', { status: 'nonsense' })).status).toBe(400);
  });

  it('credits a refund (processing code 20) to the wallet at once: a cleared authorization of type refund', async () => {
    const card = await fundedCard(10);
    const refund = authorization(card, 1250, { fields: { [F.PROCESSING_CODE]: '200000' } });
    expect((await send(refund)).code).toBe('00');
    expect(await authorizationsOf(card.cardId)).toEqual([
      expect.objectContaining({ type: 'refund', status: 'cleared', amount: 12.5, clearedAmount: 12.5 }),
    ]);
    expect(await walletOf(card.walletId)).toMatchObject({ balance: 22.5, availableBalance: 22.5 });
  });

  it('keeps every PAN it was sent out of the responses, the event log, the read models and the files', async () => {
    await settle();
    const events = await get('/v1/events', { limit: '100' });
    bodies.push(events.text);
    const files = filesUnder(h.dataDir).map((file) => readFileSync(file).toString('latin1'));
    expect(pans.length).toBeGreaterThan(10);
    for (const pan of pans) {
      for (const body of bodies) expect(body).not.toContain(pan);
      for (const file of files) expect(file.includes(pan)).toBe(false);
    }
  });
});
