import { ISSUER_LINK, type IssuerLink } from '@cip/authorizations/service';
import { ConsumerHost } from '@cip/shared/infrastructure';
import { METRICS, type PlatformMetrics } from '@cip/shared/runtime';
import { waitFor } from '@cip/shared/testing';
import { CLEARING_FILE_SINK, type ClearingFile, type ClearingFileSink } from '@cip/simulator/contract';
import { activeUserWithWallet, distributorCalls } from './testing/cardholders';
import { Harness, startHarness } from './testing/platform-harness';

// Clearing through the sandbox: POST /v1/simulate/authorization/clearing cuts a clearing file, which the
// simulator hands to the platform's clearing importer (CLEARING_FILE_SINK, the authorizations context).

describe('clearing files from the sandbox card network to the issuer', () => {
  let h: Harness;
  const { post, get } = distributorCalls(() => h);
  const merchant = { name: 'Corner Cafe', city: 'Paris', country: 'FR', mcc: '5814' };

  beforeAll(async () => {
    h = await startHarness();
    const link = h.platform.app.get<IssuerLink | null>(ISSUER_LINK);
    await waitFor(() => link?.isConnected === true, { what: 'the issuer linked to the sandbox network' });
  });
  afterAll(async () => {
    await h?.close();
  });

  const settle = async () => {
    await h.platform.app.get(ConsumerHost).drain('sandbox');
    await h.platform.app.get(ConsumerHost).drain('sandbox');
  };

  async function fundedCard(amount: number) {
    const holder = await activeUserWithWallet(h);
    const card = await post('/v1/cards', { userId: holder.userId, type: 'virtual' });
    expect(card.status).toBe(201);
    expect((await post('/v1/simulate/deposit', { walletId: holder.walletId, amount })).status).toBe(201);
    return { ...holder, cardId: card.body.id as string };
  }

  async function authorize(cardId: string, amount: number): Promise<string> {
    const response = await post('/v1/simulate/authorization', { cardId, amount, currency: 'USD', merchant });
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

  it('changes nothing when the same file is imported again', async () => {
    const holder = await fundedCard(100);
    const authorizationId = await authorize(holder.cardId, 25);
    const file = await clear({ authorizationId, amount: 10 });
    const before = await authorizationOf(authorizationId);

    await h.platform.app.get<ClearingFileSink>(CLEARING_FILE_SINK).deliver('sandbox', file);

    expect(await authorizationOf(authorizationId)).toEqual(before);
    expect(await walletOf(holder.walletId)).toMatchObject({ balance: 90, availableBalance: 75 });
    expect(await clearedEvents(holder.userId)).toHaveLength(1);
  });

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

  it('records a line beyond the tolerance as an exception for operators and changes nothing', async () => {
    const holder = await fundedCard(100);
    const authorizationId = await authorize(holder.cardId, 25);
    const before = await authorizationOf(authorizationId);
    const exceptions = async () =>
      (
        await h.platform.app
          .get<PlatformMetrics>(METRICS)
          .registry.getSingleMetricAsString('authorization_clearing_lines_total')
      ).match(/result="exception"} (\d+)/)?.[1] ?? '0';
    const counted = Number(await exceptions());

    await clear({ authorizationId, amount: 90 });

    expect(await authorizationOf(authorizationId)).toEqual(before);
    expect(await walletOf(holder.walletId)).toMatchObject({ balance: 100, availableBalance: 75 });
    expect(Number(await exceptions())).toBe(counted + 1);
  });
});
