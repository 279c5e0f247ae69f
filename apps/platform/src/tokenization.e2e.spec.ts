import { handleCommand } from '@cip/shared/eventing';
import { INFRASTRUCTURE, Infrastructure, ScopePorts } from '@cip/shared/infrastructure';
import { tokenDecider } from '@cip/tokenization/domain';
import {
  appleLikeTestChain,
  cardStatusTokensSaga,
  decryptApplePayPassData,
  googlePayKeyNames,
  openGoogleOpc,
  readPrivateKey,
  TokenizationService,
} from '@cip/tokenization/service';
import { randomUUID } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { isDeepStrictEqual } from 'node:util';
import pino from 'pino';
import {
  activeUserWithWallet,
  distributorCalls,
  eraseAsOperator,
  filesUnder,
  vaultSecretsOf,
} from './testing/cardholders';
import {
  Harness,
  PRODUCTION_KEY,
  SANDBOX_KEY,
  splitLogLines,
  startHarness,
} from './testing/platform-harness';
import { e2eTopology, itOnOneProcess } from './testing/topology';
import { webhookSettler } from './testing/webhook-settle';
import { waitFor, WebhookReceiver } from '@cip/shared/testing';

interface Token {
  id: string;
  cardId: string;
  digitalWalletName: string;
  tokenReferenceId: string;
  provisioning: string;
  status: string;
}

describe('digital-wallet tokenization over /v1, as a distributor uses it (spec part 4, "Tokenization flow")', () => {
  let h: Harness;
  let receiver: WebhookReceiver;
  /** Every response body, for the PAN grep. */
  const bodies: string[] = [];
  const seen = <T extends { text: string }>(response: T): T => {
    bodies.push(response.text);
    return response;
  };
  const cardPans: string[] = [];

  /** Every line the platform logs, at every level, for the PAN grep (one process; split: its log files). */
  const logLines: string[] = [];

  beforeAll(async () => {
    h = await startHarness(
      e2eTopology() === 'split'
        ? { allowPrivateWebhookUrls: true, splitLogLevel: 'trace' }
        : {
            allowPrivateWebhookUrls: true,
            logger: pino({ level: 'trace' }, { write: (line: string) => logLines.push(line) }),
          },
    );
    receiver = await new WebhookReceiver().start();
    const subscription = await post('/v1/webhook-subscriptions', { url: receiver.url });
    expect(subscription.status).toBe(201);
  });
  afterAll(async () => {
    try {
      // Nothing but the vault holds a card number in clear: not one file of the data directory (the event
      // log, read models, WAL files, the vault's own sealed file, the secrets), not one response of the flows
      // above, not one webhook delivery, not one log line. The payloads carried them encrypted only.
      expect(cardPans.length).toBeGreaterThan(0);
      const files = filesUnder(h.dataDir);
      // The grep sees what is stored and logged in clear: the token references are in the event log, the
      // tokenization requests in the logs.
      expect(files.some((file) => readFileSync(file).includes('"tokenReferenceId":"DNITHE'))).toBe(true);
      const logged = h.topology === 'split' ? splitLogLines(h) : logLines;
      expect(logged.some((line) => line.includes('/google-pay-tokenization'))).toBe(true);
      for (const pan of cardPans) {
        expect(files.filter((file) => readFileSync(file).includes(pan))).toEqual([]);
        expect(bodies.filter((body) => body.includes(pan))).toEqual([]);
        expect(receiver.requests.filter((request) => request.rawBody.includes(pan))).toEqual([]);
        expect(logged.filter((line) => line.includes(pan))).toEqual([]);
      }
    } finally {
      await receiver.stop();
      await settler.stop();
      await h.close();
    }
  });

  const { post, get } = distributorCalls(() => h, seen);

  /** The dispatcher has read the log and delivered (testing/webhook-settle.ts). */
  const settler = webhookSettler(() => h);
  const settle = () => settler.settle(SANDBOX_KEY);

  /** The card's PAN, read from the vault the way only the hosted reveal page may: for the grep and the payloads. */
  async function panOf(cardId: string): Promise<string> {
    const { pan } = await vaultSecretsOf(h, cardId);
    cardPans.push(pan);
    return pan;
  }

  async function newCard(options: Parameters<typeof activeUserWithWallet>[1] = {}) {
    const holder = await activeUserWithWallet(h, { seen, ...options });
    const card = await post('/v1/cards', { userId: holder.userId, type: 'virtual' }, options.key);
    expect(card.status).toBe(201);
    return { ...holder, card: card.body as { id: string; expMonth: number; expYear: number; last4: string } };
  }

  const tokensOf = async (cardId: string): Promise<Token[]> => {
    const listed = await get(`/v1/cards/${cardId}/tokens`, { sortBy: 'createdAt', limit: '100' });
    expect(listed.status).toBe(200);
    return listed.body.items;
  };

  const deliveries = (eventName: string, cardId: string) =>
    receiver
      .acknowledged(eventName)
      .map(
        (request) =>
          request.body as {
            eventName: string;
            eventTargetId: string;
            userId: string;
            data: Record<string, unknown>;
          },
      )
      .filter((event) => event.data.cardId === cardId);

  const tokenStatuses = async (cardId: string) =>
    Object.fromEntries((await tokensOf(cardId)).map((token) => [token.id, token.status]));

  /**
   * The card's tokens reach `expected` statuses: the tokenization saga reacts to the card's Events (at once
   * on one process once settled; on split, in the tokenization service's own time).
   */
  async function statusesBecome(cardId: string, expected: Record<string, string>): Promise<void> {
    await settle();
    await waitFor(async () => isDeepStrictEqual(await tokenStatuses(cardId), expected), {
      what: `the tokens of ${cardId} to be ${JSON.stringify(expected)}`,
    });
  }

  let phones = 0;
  const uniquePhone = () => ({
    country: '+33',
    number: `6${String(process.pid).slice(-4)}${String(++phones).padStart(4, '0')}`,
  });

  it('pushes the card to Apple Pay and Google Pay in payloads only the wallets open, then activates the Apple Pay token', async () => {
    const { userId, card } = await newCard();
    const pan = await panOf(card.id);

    // Apple Pay: the chain the wallet hands the app; its leaf's private key opens the pass data.
    const chain = await appleLikeTestChain();
    const nonce = Buffer.from('0a1b2c3d', 'hex').toString('base64');
    const nonceSignature = Buffer.from('the device signed the nonce').toString('base64');
    const apple = await post(`/v1/cards/${card.id}/apple-pay-tokenization`, {
      certificates: chain.certificates,
      nonce,
      nonceSignature,
    });
    expect(apple.status).toBe(200);
    expect(apple.body).toEqual({
      activationData: expect.any(String),
      encryptedPassData: expect.any(String),
      ephemeralPublicKey: expect.any(String),
      token: expect.objectContaining({
        id: expect.stringMatching(/^tkn-[0-9a-f-]{36}$/),
        cardId: card.id,
        userId,
        digitalWalletName: 'applePay',
        provisioning: 'push',
        status: 'pending_activation',
        tokenReferenceId: expect.stringMatching(/^DNITHE[0-9A-F]{26}$/),
      }),
    });
    expect(decryptApplePayPassData(chain.leafPrivateKey, apple.body, nonce)).toEqual({
      primaryAccountNumber: pan,
      expiration: `${String(card.expMonth).padStart(2, '0')}/${String(card.expYear % 100).padStart(2, '0')}`,
      nonce,
      nonceSignature,
    });

    // Google Pay: the OPC opens with Google's key (the sandbox's stand-in) and carries the issuer's signature.
    const google = await post(`/v1/cards/${card.id}/google-pay-tokenization`, {
      deviceId: 'WmWdIOZ8mXuQUhN9xYWkw8Z3',
      walletAccountId: 'Hf0cNUd-X5Fh1i5uLqRh2Q',
    });
    expect(google.status).toBe(200);
    expect(google.body.token).toMatchObject({ digitalWalletName: 'googlePay', status: 'pending_activation' });
    const names = googlePayKeyNames('sandbox');
    const secret = (name: string) => readFileSync(join(h.dataDir, 'secrets', name), 'utf8');
    const googleKey = await readPrivateKey(secret(names.standInGoogleKey));
    const issuerKey = await readPrivateKey(secret(names.issuerSigningKey));
    expect(
      await openGoogleOpc(google.body.opaquePaymentCard, {
        googleDecryptionKey: googleKey,
        issuerVerificationKey: issuerKey.toPublic(),
      }),
    ).toEqual({
      protocolHeader: { version: 1 },
      validationContext: { walletAccountId: 'Hf0cNUd-X5Fh1i5uLqRh2Q', deviceId: 'WmWdIOZ8mXuQUhN9xYWkw8Z3' },
      paymentCard: {
        accountNumber: pan,
        expiryMonth: String(card.expMonth).padStart(2, '0'),
        expiryYear: String(card.expYear % 100).padStart(2, '0'),
      },
    });

    expect((await tokensOf(card.id)).map((token) => [token.digitalWalletName, token.status])).toEqual([
      ['applePay', 'pending_activation'],
      ['googlePay', 'pending_activation'],
    ]);

    // The user authenticated with Apple Pay: activate with the reference the wallet reports.
    const applePayToken = apple.body.token as Token;
    const wrongWallet = await post(`/v1/cards/${card.id}/activate-tokenization`, {
      digitalWalletName: 'googlePay',
      tokenReferenceId: applePayToken.tokenReferenceId,
    });
    expect(wrongWallet.status).toBe(404);
    const activation = { digitalWalletName: 'applePay', tokenReferenceId: applePayToken.tokenReferenceId };
    const activated = await post(`/v1/cards/${card.id}/activate-tokenization`, activation);
    expect(activated.status).toBe(200);
    expect(activated.body).toMatchObject({ id: applePayToken.id, status: 'active' });
    // A retry changes nothing: still active, one Event.
    expect((await post(`/v1/cards/${card.id}/activate-tokenization`, activation)).body.status).toBe('active');

    await settle();
    const events = deliveries('cardTokenization.activated', card.id);
    expect(events).toHaveLength(1);
    expect(events[0]).toMatchObject({ eventTargetId: applePayToken.id, userId });
    expect(events[0].data).toMatchObject({
      cardId: card.id,
      consumerFacingEntityName: null,
      digitalWalletName: 'applePay',
      status: 'active',
    });
    expect((await tokensOf(card.id)).map((token) => token.status)).toEqual(['active', 'pending_activation']);
  });

  it('plays the token service: an activation code by e-mail or SMS (webhook first), then the activation', async () => {
    const phone = uniquePhone();
    const { userId, email, card } = await newCard({ phone });
    await panOf(card.id);

    const byEmail = await post('/v1/simulate/tokenization', {
      cardId: card.id,
      digitalWalletName: 'googlePay',
      activationMethod: 'email',
    });
    expect(byEmail.status).toBe(200);
    expect(byEmail.body).toMatchObject({
      digitalWalletName: 'googlePay',
      provisioning: 'manual',
      status: 'active',
    });
    const bySms = await post('/v1/simulate/tokenization', {
      cardId: card.id,
      digitalWalletName: 'applePay',
      activationMethod: 'sms',
    });
    expect(bySms.status).toBe(200);
    const clickToPay = await post('/v1/simulate/tokenization', {
      cardId: card.id,
      digitalWalletName: 'remoteCommercePrograms',
    });
    expect(clickToPay.status).toBe(200);

    await settle();
    const codes = deliveries('cardTokenization.deliverActivationCode', card.id);
    expect(codes).toHaveLength(2);
    const [emailCode, smsCode] = codes;
    expect(emailCode).toMatchObject({ eventTargetId: byEmail.body.id, userId });
    expect(emailCode.data).toMatchObject({
      cardId: card.id,
      consumerFacingEntityName: null,
      digitalWalletName: 'googlePay',
      activationMethod: 'email',
      activationCode: expect.stringMatching(/^\d{6}$/),
      emailAddress: email,
    });
    expect(emailCode.data).not.toHaveProperty('phone');
    expect(smsCode.data).toMatchObject({
      digitalWalletName: 'applePay',
      activationMethod: 'sms',
      activationCode: expect.stringMatching(/^\d{6}$/),
      phone,
    });
    expect(smsCode.data).not.toHaveProperty('emailAddress');

    // Each code is delivered before its token's activation; click to pay takes no code.
    const activations = deliveries('cardTokenization.activated', card.id);
    expect(activations.map((event) => [event.eventTargetId, event.data.digitalWalletName])).toEqual([
      [byEmail.body.id, 'googlePay'],
      [bySms.body.id, 'applePay'],
      [clickToPay.body.id, 'remoteCommercePrograms'],
    ]);
    const order = receiver.acknowledged().map((request) => request.body.eventId);
    for (const [code, activation] of [
      [emailCode, activations[0]],
      [smsCode, activations[1]],
    ]) {
      expect(order.indexOf((code as { eventId?: string }).eventId)).toBeLessThan(
        order.indexOf((activation as { eventId?: string }).eventId),
      );
    }
    expect(await tokensOf(card.id)).toHaveLength(3);
  });

  it('redacts the contact an activation code went to when the user is erased (crypto-shredded in the log)', async () => {
    const phone = uniquePhone();
    const { userId, email, card } = await newCard({ phone });
    await panOf(card.id);
    for (const activationMethod of ['email', 'sms']) {
      const simulated = await post('/v1/simulate/tokenization', {
        cardId: card.id,
        digitalWalletName: 'googlePay',
        activationMethod,
      });
      expect(simulated.status).toBe(200);
    }
    await settle();
    const codeEvents = async () =>
      (
        await get('/v1/events', { userId, eventName: 'cardTokenization.deliverActivationCode' })
      ).body.items.map((event: { data: Record<string, unknown> }) => event.data);
    expect(await codeEvents()).toEqual(
      expect.arrayContaining([
        expect.objectContaining({ emailAddress: email }),
        expect.objectContaining({ phone }),
      ]),
    );

    await eraseAsOperator(h, userId, 'DSR-tokens');
    await settle();
    const erased = await codeEvents();
    expect(erased).toHaveLength(2);
    expect(erased).toEqual(
      expect.arrayContaining([
        expect.objectContaining({ activationMethod: 'email', emailAddress: null }),
        expect.objectContaining({ activationMethod: 'sms', phone: null }),
      ]),
    );
    expect(JSON.stringify(erased)).not.toContain(email);
    expect(JSON.stringify(erased)).not.toContain(phone.number);
  });

  it('refuses what it cannot do, naming why, and records no token', async () => {
    const { card } = await newCard();
    await panOf(card.id);

    const noPhone = await post('/v1/simulate/tokenization', {
      cardId: card.id,
      digitalWalletName: 'googlePay',
      activationMethod: 'sms',
    });
    expect(noPhone.status).toBe(409);
    expect(noPhone.body.error.code).toBe('activation_method_unavailable');

    const codeForClickToPay = await post('/v1/simulate/tokenization', {
      cardId: card.id,
      digitalWalletName: 'remoteCommercePrograms',
      activationMethod: 'email',
    });
    expect(codeForClickToPay.status).toBe(400);
    expect(codeForClickToPay.body.error.code).toBe('validation_error');

    const production = await post(
      '/v1/simulate/tokenization',
      { cardId: card.id, digitalWalletName: 'googlePay' },
      PRODUCTION_KEY,
    );
    expect(production.status).toBe(403);
    expect(production.body.error.code).toBe('sandbox_only');

    const stranger = await appleLikeTestChain();
    const own = await appleLikeTestChain();
    const brokenChain = await post(`/v1/cards/${card.id}/apple-pay-tokenization`, {
      certificates: [own.certificates[0], stranger.certificates[1]],
      nonce: 'AAECAw==',
      nonceSignature: 'AAECAw==',
    });
    expect(brokenChain.status).toBe(400);
    expect(brokenChain.body.error.details).toEqual([
      { field: 'certificates[0]', message: 'is not signed by certificates[1]' },
    ]);
    const notBase64 = await post(`/v1/cards/${card.id}/apple-pay-tokenization`, {
      certificates: ['not base64!'],
      nonce: 'AAECAw==',
      nonceSignature: 'AAECAw==',
    });
    expect(notBase64.status).toBe(400);

    const unknownToken = await post(`/v1/cards/${card.id}/activate-tokenization`, {
      digitalWalletName: 'googlePay',
      tokenReferenceId: 'DNITHE00000000000000000000000000',
    });
    expect(unknownToken.status).toBe(404);

    expect(await tokensOf(card.id)).toEqual([]);
  });

  it('suspends the tokens of a frozen card, resumes them where they were, and deletes them with the card', async () => {
    const { card } = await newCard();
    await panOf(card.id);
    const active = (
      await post('/v1/simulate/tokenization', { cardId: card.id, digitalWalletName: 'applePay' })
    ).body as Token;
    const pending = (
      await post(`/v1/cards/${card.id}/google-pay-tokenization`, {
        deviceId: 'device-1',
        walletAccountId: 'wallet-1',
      })
    ).body.token as Token;
    expect((await post(`/v1/cards/${card.id}/freeze`)).status).toBe(200);
    await statusesBecome(card.id, { [active.id]: 'suspended', [pending.id]: 'suspended' });

    // A frozen card is not tokenized, and its suspended token cannot be activated.
    const refused = await post(`/v1/cards/${card.id}/google-pay-tokenization`, {
      deviceId: 'device-2',
      walletAccountId: 'wallet-2',
    });
    expect(refused.status).toBe(409);
    expect(refused.body.error.code).toBe('card_not_active');
    const suspendedActivation = await post(`/v1/cards/${card.id}/activate-tokenization`, {
      digitalWalletName: 'googlePay',
      tokenReferenceId: pending.tokenReferenceId,
    });
    expect(suspendedActivation.status).toBe(409);
    expect(suspendedActivation.body.error.code).toBe('invalid_state_transition');

    expect((await post(`/v1/cards/${card.id}/unfreeze`)).status).toBe(200);
    await statusesBecome(card.id, { [active.id]: 'active', [pending.id]: 'pending_activation' });

    expect((await post(`/v1/cards/${card.id}/revoke`)).status).toBe(200);
    await statusesBecome(card.id, { [active.id]: 'deleted', [pending.id]: 'deleted' });
    const late = await post(`/v1/cards/${card.id}/activate-tokenization`, {
      digitalWalletName: 'googlePay',
      tokenReferenceId: pending.tokenReferenceId,
    });
    expect(late.status).toBe(409);
  });

  itOnOneProcess(
    'hands the saga an Event in process',
    "changes nothing when a card's freeze is delivered again after the unfreeze (at-least-once delivery)",
    async () => {
      const { card } = await newCard();
      await panOf(card.id);
      const active = (
        await post('/v1/simulate/tokenization', { cardId: card.id, digitalWalletName: 'applePay' })
      ).body as Token;
      expect((await post(`/v1/cards/${card.id}/freeze`)).status).toBe(200);
      await statusesBecome(card.id, { [active.id]: 'suspended' });
      expect((await post(`/v1/cards/${card.id}/unfreeze`)).status).toBe(200);
      await statusesBecome(card.id, { [active.id]: 'active' });

      const cardEvents = await h.platform.app
        .get<Infrastructure>(INFRASTRUCTURE)
        .scope('sandbox')
        .eventStore.readStream(card.id);
      const freeze = cardEvents.find((event) => event.type === 'CardFrozen');
      expect(freeze).toBeDefined();
      await cardStatusTokensSaga.handle(
        [h.platform.app.get(TokenizationService)],
        freeze as never,
        {
          scope: 'sandbox',
        } as ScopePorts,
      );
      await settle();
      expect(await tokenStatuses(card.id)).toEqual({ [active.id]: 'active' });
    },
  );

  itOnOneProcess(
    'appends to the event store in process (a race no API call can make)',
    'suspends a token recorded just as its card was frozen (the card was read as active a moment before)',
    async () => {
      const { userId, card } = await newCard();
      expect((await post(`/v1/cards/${card.id}/freeze`)).status).toBe(200);
      await settle();

      // The request that read the card as active records its token only now, after the freeze was handled.
      const tokenId = `tkn-${randomUUID()}`;
      const now = new Date().toISOString();
      await handleCommand(
        h.platform.app.get<Infrastructure>(INFRASTRUCTURE).scope('sandbox').eventStore,
        tokenDecider,
        tokenId,
        {
          type: 'RequestToken',
          data: {
            tokenId,
            distributorId: h.platform.distributorId,
            cardId: card.id,
            userId,
            cardStatus: 'active',
            digitalWalletName: 'googlePay',
            tokenReferenceId: 'DNITHE0123456789ABCDEF0123456789',
            provisioning: 'push',
            deviceId: 'device-1',
            walletAccountId: 'wallet-1',
            now,
          },
        },
        {
          occurredAt: now,
          distributorId: h.platform.distributorId,
          environment: 'sandbox',
          correlationId: 'late-token',
          causationId: 'late-token',
        },
      );
      await settle();
      expect((await tokensOf(card.id)).map((token) => [token.id, token.status])).toEqual([
        [tokenId, 'suspended'],
      ]);
    },
  );

  it("answers 404 for another distributor's card on every tokenization endpoint", async () => {
    const other = await h.newDistributor({ allowedCountries: ['FR'] });
    const { card: theirs } = await newCard({ key: other.sandboxKey });
    const chain = await appleLikeTestChain();
    const attempts = [
      await post(`/v1/cards/${theirs.id}/apple-pay-tokenization`, {
        certificates: chain.certificates,
        nonce: 'AAECAw==',
        nonceSignature: 'AAECAw==',
      }),
      await post(`/v1/cards/${theirs.id}/google-pay-tokenization`, { deviceId: 'd', walletAccountId: 'w' }),
      await post(`/v1/cards/${theirs.id}/activate-tokenization`, {
        digitalWalletName: 'googlePay',
        tokenReferenceId: 'DNITHE00000000000000000000000000',
      }),
      await get(`/v1/cards/${theirs.id}/tokens`),
      await post('/v1/simulate/tokenization', { cardId: theirs.id, digitalWalletName: 'googlePay' }),
    ];
    expect(attempts.map((response) => [response.status, response.body.error?.code])).toEqual(
      attempts.map(() => [404, 'not_found']),
    );
    expect((await get(`/v1/cards/${theirs.id}/tokens`, {}, other.sandboxKey)).body.items).toEqual([]);
  });
});
