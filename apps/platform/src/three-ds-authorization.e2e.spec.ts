import { waitFor } from '@cip/shared/testing';
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import {
  activeUserWithWallet,
  distributorCalls,
  filesUnder,
  issuerLinked,
  vaultSecretsOf,
} from './testing/cardholders';
import { Harness, startHarness } from './testing/platform-harness';

// The loop a real issuer closes (issue 13): the authentication value (CAVV) the ACS issues with a Y, a
// frictionless ARes or the RReq of an accepted challenge, travels in the 0100 that follows (DE-048
// subelements 43 and 42, from the sandbox acquirer) and the issuer verifies it through the three-ds contract:
// for this card, amount, currency and merchant, once. All over HTTP, the issuer linked to the simulator.

describe('3-D Secure authentication values verified on the authorization that follows', () => {
  let h: Harness;
  const bodies: string[] = [];
  const seen = <T extends { text: string }>(response: T): T => {
    bodies.push(response.text);
    return response;
  };
  const { post, get } = distributorCalls(() => h, seen);
  const merchant = { name: 'Corner Cafe', city: 'Paris', country: 'FR', mcc: '5814' };
  let cardId: string;
  let pan: string;

  beforeAll(async () => {
    h = await startHarness();
    await issuerLinked(h);
    const holder = await activeUserWithWallet(h, { seen });
    const card = await post('/v1/cards', { userId: holder.userId, type: 'virtual' });
    expect(card.status).toBe(201);
    cardId = card.body.id;
    pan = (await vaultSecretsOf(h, cardId)).pan;
    expect((await post('/v1/simulate/deposit', { walletId: holder.walletId, amount: 500 })).status).toBe(201);
  });

  afterAll(async () => {
    try {
      // The PAN crossed the ACS and the network: it is in no response and no file of the data directory.
      expect(bodies.filter((body) => body.includes(pan))).toEqual([]);
      expect(filesUnder(h.dataDir).filter((file) => readFileSync(file).includes(pan))).toEqual([]);
    } finally {
      await h?.close();
    }
  });

  const pay = (body: object) =>
    post('/v1/simulate/authorization', { cardId, currency: 'USD', merchant, ...body });

  /** A decoupled challenge at the merchant, accepted; its id once the sandbox 3DS server has the RReq. */
  async function acceptedChallenge(amount: number): Promise<string> {
    const simulated = await post('/v1/simulate/3ds', {
      cardId,
      merchantName: merchant.name,
      merchantAmount: amount,
      merchantCurrency: 'USD',
    });
    expect(simulated.body.transStatus).toBe('D');
    const id = simulated.body.cardAuthenticationId as string;
    expect((await post('/v1/3ds/accept', { cardAuthenticationId: id })).status).toBe(200);
    await waitFor(async () => (await get(`/v1/simulate/3ds/${id}`)).body.result !== null, {
      what: `the RReq of ${id}`,
    });
    const { result } = (await get(`/v1/simulate/3ds/${id}`)).body;
    expect(result).toMatchObject({ transStatus: 'Y', eci: '05', authenticated: true });
    expect(result.authenticationValue).toMatch(/^[A-Za-z0-9+/]{27}=$/);
    return id;
  }

  it('approves a payment with the value of an accepted challenge, verified, and declines its reuse with 63', async () => {
    const id = await acceptedChallenge(25);

    const approved = await pay({ amount: 25, cardAuthenticationId: id });
    expect(approved.status).toBe(200);
    expect(approved.body.network).toMatchObject({ requestMti: '0100', responseCode: '00' });
    expect(approved.body.authorization).toMatchObject({
      decision: 'confirmed',
      threeDs: { eci: '05', verified: true },
    });
    const shown = await get(`/v1/authorizations/${approved.body.authorization.id}`);
    expect(shown.body.threeDs).toEqual({ eci: '05', verified: true });

    // A value is single use: the second payment presenting it is declined as a security violation.
    const reused = await pay({ amount: 25, cardAuthenticationId: id });
    expect(reused.body.network).toMatchObject({ responseCode: '63' });
    expect(reused.body.authorization).toMatchObject({
      decision: 'rejected',
      declineReasonCode: 'other',
      threeDs: { eci: '05', verified: false },
    });
  });

  it('verifies a frictionless Y for its own amount only, and declines a tampered value', async () => {
    // The card accepted a challenge at this merchant (above): a low-value payment there is frictionless.
    const simulated = await post('/v1/simulate/3ds', {
      cardId,
      merchantName: merchant.name,
      merchantAmount: 20,
      merchantCurrency: 'USD',
    });
    expect(simulated.body).toMatchObject({ transStatus: 'Y', eci: '05', cardAuthenticationId: null });
    const value = simulated.body.authenticationValue as string;
    expect(value).toMatch(/^[A-Za-z0-9+/]{27}=$/);

    const tampered = `${value[0] === 'A' ? 'B' : 'A'}${value.slice(1)}`;
    const forged = await pay({ amount: 20, threeDs: { authenticationValue: tampered, eci: '05' } });
    expect(forged.body.network).toMatchObject({ responseCode: '63' });
    expect(forged.body.authorization).toMatchObject({ decision: 'rejected', declineReasonCode: 'other' });

    // For another amount the MAC does not match: declined, and the value is not spent by it.
    const otherAmount = await pay({ amount: 21, threeDs: { authenticationValue: value, eci: '05' } });
    expect(otherAmount.body.network).toMatchObject({ responseCode: '63' });

    const approved = await pay({ amount: 20, threeDs: { authenticationValue: value, eci: '05' } });
    expect(approved.body.network).toMatchObject({ responseCode: '00' });
    expect(approved.body.authorization.threeDs).toEqual({ eci: '05', verified: true });
  });

  it('lets one of two payments racing with the same value have it: the other is declined', async () => {
    const id = await acceptedChallenge(40);
    const raced = await Promise.all([
      pay({ amount: 40, cardAuthenticationId: id }),
      pay({ amount: 40, cardAuthenticationId: id }),
    ]);
    expect(raced.map((response) => response.body.network.responseCode).sort()).toEqual(['00', '63']);
  });

  it('verifies after a restart a value issued before it (the key is kept under DATA_DIR/secrets)', async () => {
    const simulated = await post('/v1/simulate/3ds', {
      cardId,
      merchantName: merchant.name,
      merchantAmount: 10,
      merchantCurrency: 'USD',
    });
    expect(simulated.body.transStatus).toBe('Y');
    const dataDir = h.dataDir;
    expect(existsSync(join(dataDir, 'secrets', 'three-ds-authentication-value-key-sandbox'))).toBe(true);
    await h.close({ keepData: true });
    h = await startHarness({ dataDir });
    await issuerLinked(h);

    const approved = await pay({
      amount: 10,
      threeDs: { authenticationValue: simulated.body.authenticationValue, eci: simulated.body.eci },
    });
    expect(approved.body.network).toMatchObject({ responseCode: '00' });
    expect(approved.body.authorization.threeDs).toEqual({ eci: '05', verified: true });
  });

  it('decides an e-commerce payment without a value as before, and refuses a challenge not accepted', async () => {
    const plain = await pay({ amount: 5 });
    expect(plain.body.network).toMatchObject({ responseCode: '00' });
    expect(plain.body.authorization.decision).toBe('confirmed');
    expect(plain.body.authorization).not.toHaveProperty('threeDs');

    const pending = await post('/v1/simulate/3ds', {
      cardId,
      merchantName: 'Another Shop',
      merchantAmount: 50,
      merchantCurrency: 'USD',
    });
    expect(pending.body.transStatus).toBe('D');
    const refused = await pay({ amount: 50, cardAuthenticationId: pending.body.cardAuthenticationId });
    expect(refused.status).toBe(409);
    expect(refused.body.error.code).toBe('invalid_state_transition');
  });
});
