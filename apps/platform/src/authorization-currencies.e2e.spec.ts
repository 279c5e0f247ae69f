import { SANDBOX_TEST_FX_RATES } from '@cip/authorizations/contract';
import { iso4217Currency } from '@cip/shared/contracts';
import { SIMULATED_CURRENCIES } from '@cip/simulator/domain';
import { activeUserWithWallet, distributorCalls, issuerLinked } from './testing/cardholders';
import { Harness, SANDBOX_KEY, startHarness } from './testing/platform-harness';

// Issue 31: every currency the sandbox's card network accepts goes through the network path (the simulator's
// 0100 with DE-049 numeric, the platform's issuer) and comes back on the authorization with its alphabetic
// code and its exact amount, priced at the sandbox's test rate; and an amount with more decimals than its
// currency is refused at the API, judged on the JSON literal, with nothing recorded.

describe('currencies and exact amounts through the sandbox card network', () => {
  let h: Harness;
  const { post, get } = distributorCalls(() => h);
  const merchant = { name: 'Corner Cafe', city: 'Paris', country: 'FR', mcc: '5814' };
  let card: { cardId: string; walletId: string };

  beforeAll(async () => {
    h = await startHarness();
    await issuerLinked(h);
    const holder = await activeUserWithWallet(h);
    const created = await post('/v1/cards', { userId: holder.userId, type: 'virtual' });
    expect(created.status).toBe(201);
    expect((await post('/v1/simulate/deposit', { walletId: holder.walletId, amount: 5000 })).status).toBe(
      201,
    );
    card = { cardId: created.body.id, walletId: holder.walletId };
  });
  afterAll(async () => {
    await h?.close();
  });

  /** A JSON body sent as written: the literal of `amount` is what the test means, not JSON.stringify's. */
  const rawPost = (path: string, text: string) =>
    h.http.post(path).set({ 'x-api-key': SANDBOX_KEY, 'content-type': 'application/json' }).send(text);
  const authorizationsOfCard = async () =>
    (await get('/v1/authorizations', { cardId: card.cardId, limit: '100' })).body.items as unknown[];

  /** An amount using every decimal of the currency: 1234 JPY, 12.34 EUR, 1.234 KWD. */
  const amountText = (minorUnits: number) =>
    minorUnits === 0 ? '1234' : `${'1234'.slice(0, 4 - minorUnits) || '0'}.${'1234'.slice(-minorUnits)}`;

  it.each(SIMULATED_CURRENCIES.map((code) => [code]))(
    '%s: confirmed, recorded with its alphabetic code and its exact amount',
    async (code) => {
      const { minorUnits } = iso4217Currency(code)!;
      const text = amountText(minorUnits);
      const response = await rawPost(
        '/v1/simulate/authorization',
        `{"cardId":"${card.cardId}","amount":${text},"currency":"${code}","merchant":${JSON.stringify(merchant)}}`,
      );
      expect(response.status).toBe(200);
      expect(response.body.network).toMatchObject({ requestMti: '0100', responseCode: '00' });
      const { authorization } = response.body;
      expect(authorization).toMatchObject({
        decision: 'confirmed',
        merchantCurrency: code,
        merchantAmount: text,
        currency: 'USD',
      });
      expect(authorization.declineReasonCode).toBeUndefined();
      // Priced at the sandbox's test rate, to the cent (USD exactly).
      const rate = code === 'USD' ? 1 : Number(SANDBOX_TEST_FX_RATES[code]);
      expect(authorization.amount).toBeCloseTo(Number(text) * rate, 1);
      // The record the distributor reads later says the same.
      const stored = await get(`/v1/authorizations/${authorization.id}`);
      expect(stored.body).toMatchObject({ merchantCurrency: code, merchantAmount: text });
      if (code === 'USD') expect(stored.body.amount).toBe(12.34);
    },
  );

  it.each([
    ['999.999', 'USD'],
    ['100.001', 'USD'],
    ['1500.5', 'JPY'],
    ['1.2345', 'KWD'],
    ['10.0001', 'BHD'],
    // Beyond what a double keeps: it reads as exactly 1000000000; its literal has 10 decimals.
    ['1000000000.0000000001', 'JPY'],
  ])('refuses %s %s with 400 validation_error naming amount, and records nothing', async (text, code) => {
    const before = await authorizationsOfCard();
    const balance = (await get(`/v1/wallets/${card.walletId}`)).body;
    const response = await rawPost(
      '/v1/simulate/authorization',
      `{"cardId":"${card.cardId}","amount":${text},"currency":"${code}","merchant":${JSON.stringify(merchant)}}`,
    );
    expect(response.status).toBe(400);
    expect(response.body.error).toMatchObject({
      code: 'validation_error',
      details: [expect.objectContaining({ field: 'amount' })],
    });
    expect(await authorizationsOfCard()).toEqual(before);
    expect((await get(`/v1/wallets/${card.walletId}`)).body).toMatchObject({
      balance: balance.balance,
      availableBalance: balance.availableBalance,
    });
  });

  it('takes 999.990 USD as 999.99: trailing zeros are not decimals', async () => {
    const response = await rawPost(
      '/v1/simulate/authorization',
      `{"cardId":"${card.cardId}","amount":999.990,"currency":"USD","merchant":${JSON.stringify(merchant)}}`,
    );
    expect(response.status).toBe(200);
    expect(response.body.authorization).toMatchObject({ merchantAmount: '999.99', amount: 999.99 });
  });

  it('refuses more decimals than the currency on the other money inputs too (3DS, deposit, limits)', async () => {
    const threeDs = await rawPost(
      '/v1/simulate/3ds',
      `{"cardId":"${card.cardId}","merchantName":"Corner Cafe","merchantAmount":12.345,"merchantCurrency":"EUR"}`,
    );
    expect(threeDs.status).toBe(400);
    expect(threeDs.body.error.details).toEqual([expect.objectContaining({ field: 'merchantAmount' })]);
    const deposit = await rawPost(
      '/v1/simulate/deposit',
      `{"walletId":"${card.walletId}","amount":1.0000001}`,
    );
    expect(deposit.status).toBe(400);
    expect(deposit.body.error.details).toEqual([expect.objectContaining({ field: 'amount' })]);
    const limits = await h.http
      .put(`/v1/cards/${card.cardId}/spending-controls`)
      .set({ 'x-api-key': SANDBOX_KEY, 'content-type': 'application/json' })
      .send('{"limits":[{"amount":100.005,"interval":"daily"}]}');
    expect(limits.status).toBe(400);
    expect(limits.body.error.details).toEqual([expect.objectContaining({ field: 'limits.0.amount' })]);
  });
});
