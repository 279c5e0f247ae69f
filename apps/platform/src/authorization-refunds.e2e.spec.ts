import { waitFor } from '@cip/shared/testing';
import { activeUserWithWallet, distributorCalls, issuerLinked, walletSettled } from './testing/cardholders';
import { Harness, PRODUCTION_KEY, startHarness } from './testing/platform-harness';

// Refunds through the sandbox card network (real ISO 8583 to the platform's issuer), as a distributor sees
// them: the record, the Events and the wallet agree. A refund the wallet ledger cannot take (its balance would
// pass the platform's bound) is refused with the network's answer and claims no credit; refunds that name a
// payment give back at most what it cleared and was not refunded, however many arrive at once.

describe('refunds and card movements: the record, the Events and the balance agree', () => {
  let h: Harness;
  const { post, get } = distributorCalls(() => h);
  const merchant = { name: 'Refund Shop', city: 'Paris', country: 'FR', mcc: '5814' };

  beforeAll(async () => {
    h = await startHarness();
    await issuerLinked(h);
  });
  afterAll(async () => {
    await h?.close();
  });

  async function cardholder(deposit: number) {
    const { userId, walletId } = await activeUserWithWallet(h);
    expect((await post('/v1/simulate/deposit', { walletId, amount: deposit })).status).toBe(201);
    const card = await post('/v1/cards', { userId, type: 'virtual' });
    expect(card.status).toBe(201);
    return { userId, walletId, cardId: card.body.id as string };
  }

  const eventNamesOf = async (authorizationId: string) => {
    const events = await get(`/v1/events?limit=100`);
    return (events.body.items as { eventName: string; eventTargetId?: string; data?: { id?: string } }[])
      .filter((event) => (event.eventTargetId ?? event.data?.id) === authorizationId)
      .map((event) => event.eventName)
      .sort();
  };

  it('refuses a refund the wallet cannot take (999,999,950 USD on a wallet of 100): rejected, network 61, no credit claimed', async () => {
    const { walletId, cardId } = await cardholder(100);
    const refund = await post('/v1/simulate/authorization/refund', {
      cardId,
      amount: 999_999_950,
      currency: 'USD',
      merchant,
    });
    expect(refund.status).toBe(200);
    expect(refund.body.network).toMatchObject({ responseCode: '61' });
    expect(refund.body.authorization).toMatchObject({
      type: 'refund',
      status: 'rejected',
      decision: 'rejected',
    });
    const id = refund.body.authorization.id as string;
    expect((await get(`/v1/authorizations/${id}`)).body).toMatchObject({ status: 'rejected' });
    await walletSettled(h, walletId, { balance: 100, availableBalance: 100 });
    await waitFor(async () => (await eventNamesOf(id)).length > 0, { what: `the Events of ${id}` });
    expect(await eventNamesOf(id)).toEqual(['cardAuthorization.rejected']);
  });

  it('credits ten concurrent refunds of 40 against a cleared payment of 40 once, and none against a payment of 40 reversed whole', async () => {
    const { walletId, cardId } = await cardholder(100);
    const pay = async () => {
      const paid = await post('/v1/simulate/authorization', {
        cardId,
        amount: 40,
        currency: 'USD',
        merchant,
      });
      expect(paid.body.network).toMatchObject({ responseCode: '00' });
      return paid.body.authorization.id as string;
    };
    const cleared = await pay();
    expect((await post('/v1/simulate/authorization/clearing', { authorizationId: cleared })).status).toBe(
      200,
    );
    const reversed = await pay();
    expect((await post('/v1/simulate/authorization/reversal', { authorizationId: reversed })).status).toBe(
      200,
    );
    await walletSettled(h, walletId, { balance: 60, availableBalance: 60 });

    const refunds = (authorizationId: string) =>
      Promise.all(
        Array.from({ length: 10 }, () =>
          post('/v1/simulate/authorization/refund', {
            cardId,
            amount: 40,
            currency: 'USD',
            merchant,
            authorizationId,
          }),
        ),
      );
    const ofCleared = await refunds(cleared);
    const ofReversed = await refunds(reversed);
    const codes = (answers: { body: { network?: { responseCode: string } } }[]) =>
      answers.map((answer) => answer.body.network?.responseCode).sort();
    expect(codes(ofCleared)).toEqual(['00', ...Array(9).fill('13')]);
    expect(codes(ofReversed)).toEqual(Array(10).fill('13'));
    for (const answer of [...ofCleared, ...ofReversed]) {
      const status = answer.body.authorization?.status;
      expect(answer.body.network.responseCode === '00' ? status : `declined ${status}`).toMatch(
        /^cleared$|^declined rejected$/,
      );
    }
    // 100 - 40 cleared + 40 refunded once.
    await walletSettled(h, walletId, { balance: 100, availableBalance: 100 });
  });
  it("lists one card's movements with GET /v1/transactions?cardId= (holds, clearings, refunds), not the wallet's others", async () => {
    const { userId, walletId, cardId } = await cardholder(100);
    const other = await post('/v1/cards', { userId, type: 'virtual' });
    expect(other.status).toBe(201);
    const otherCardId = other.body.id as string;
    const paid = await post('/v1/simulate/authorization', { cardId, amount: 10, currency: 'USD', merchant });
    expect(paid.body.network).toMatchObject({ responseCode: '00' });
    const paidId = paid.body.authorization.id as string;
    expect((await post('/v1/simulate/authorization/clearing', { authorizationId: paidId })).status).toBe(200);
    const refund = await post('/v1/simulate/authorization/refund', {
      cardId,
      amount: 4,
      currency: 'USD',
      merchant,
      authorizationId: paidId,
    });
    expect(refund.body.network).toMatchObject({ responseCode: '00' });
    const elsewhere = await post('/v1/simulate/authorization', {
      cardId: otherCardId,
      amount: 3,
      currency: 'USD',
      merchant,
    });
    expect(elsewhere.body.network).toMatchObject({ responseCode: '00' });
    await walletSettled(h, walletId, { balance: 94, availableBalance: 91 });

    const byCard = await get('/v1/transactions', { cardId });
    expect(byCard.status).toBe(200);
    const rows = (
      byCard.body.items as {
        type: string;
        status: string;
        amount: number;
        cardId: string;
        reference: string;
      }[]
    )
      .map(({ type, status, amount, cardId: card, reference }) => ({ type, status, amount, card, reference }))
      .sort((a, b) => a.type.localeCompare(b.type));
    expect(rows).toEqual([
      { type: 'authorization', status: 'completed', amount: 10, card: cardId, reference: paidId },
      {
        type: 'refund',
        status: 'completed',
        amount: 4,
        card: cardId,
        reference: refund.body.authorization.id,
      },
    ]);
    const ofOther = await get('/v1/transactions', { cardId: otherCardId });
    expect(ofOther.body.items).toEqual([
      expect.objectContaining({ type: 'authorization', status: 'pending', amount: 3, cardId: otherCardId }),
    ]);
    // The wallet's list has them all, the deposit with no card.
    const all = await get('/v1/transactions', { walletId });
    expect(
      (all.body.items as { type: string; cardId: string | null }[]).map((t) => [t.type, t.cardId]).sort(),
    ).toEqual(
      [
        ['authorization', cardId],
        ['authorization', otherCardId],
        ['deposit', null],
        ['refund', cardId],
      ].sort(),
    );
    // A malformed card id is a 400 naming the field; another environment's card lists nothing.
    const malformed = await get('/v1/transactions', { cardId: 'not-a-card' });
    expect([malformed.status, malformed.body.error.code, malformed.body.error.details?.[0]?.field]).toEqual([
      400,
      'validation_error',
      'cardId',
    ]);
    const otherTenant = await get('/v1/transactions', { cardId }, PRODUCTION_KEY);
    expect([otherTenant.status, otherTenant.body.items]).toEqual([200, []]);
  });
});
