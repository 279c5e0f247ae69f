import { activeUserWithWallet, distributorCalls, issuerLinked, setCardPin } from './testing/cardholders';
import { Harness, startHarness } from './testing/platform-harness';

// A PIN entered at the sandbox's card network (POST /v1/simulate/authorization) travels as DE-052, a format 0
// block encrypted under the zone PIN key the network and the platform's issuer share (CARD_NETWORK_ZPK, the
// public sandbox key by default), and the issuer, linked to the simulator, decrypts and checks it.

describe('PIN through the sandbox card network to the issuer', () => {
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

  it('approves the right PIN, declines a wrong one with 55, and blocks the card after three', async () => {
    const holder = await activeUserWithWallet(h);
    const card = await post('/v1/cards', { userId: holder.userId, type: 'virtual' });
    expect(card.status).toBe(201);
    expect((await post('/v1/simulate/deposit', { walletId: holder.walletId, amount: 100 })).status).toBe(201);
    await setCardPin(h, card.body.id, '4321');
    const pay = (pin: string) =>
      post('/v1/simulate/authorization', {
        cardId: card.body.id,
        amount: 10,
        currency: 'USD',
        merchant,
        pin,
      });

    const right = await pay('4321');
    expect(right.status).toBe(200);
    expect(right.body.network).toMatchObject({ requestMti: '0100', responseCode: '00', advice: null });
    expect(right.body.authorization).not.toBeNull();

    for (let i = 0; i < 3; i++) {
      const wrong = await pay('0000');
      expect(wrong.status).toBe(200);
      expect(wrong.body.network).toMatchObject({ requestMti: '0100', responseCode: '55', advice: null });
    }
    expect((await get(`/v1/cards/${card.body.id}`)).body).toMatchObject({ status: 'frozen' });
  });
});
