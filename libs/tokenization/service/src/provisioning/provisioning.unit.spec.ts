import * as openpgp from 'openpgp';
import {
  decryptApplePayPassData,
  encryptApplePayPassData,
  leafPublicKey,
  passDataExpiration,
} from './apple-pay-pass-data';
import { appleLikeTestChain } from './apple-pay-test-chain';
import {
  generateOpenPgpKey,
  googleOpaquePaymentCard,
  openGoogleOpc,
  readPrivateKey,
  sealGoogleOpc,
} from './google-opaque-payment-card';

const NOW = new Date();
const PAN = '4000009912345678';

describe('Apple Pay pass data (the documented ECDH P-256 + HKDF-SHA256 + AES-256-GCM stand-in)', () => {
  const nonce = Buffer.from('a1b2c3d4', 'hex').toString('base64');
  const nonceSignature = Buffer.from('signed by the device').toString('base64');
  const passData = {
    primaryAccountNumber: PAN,
    expiration: passDataExpiration(3, 2029),
    nonce,
    nonceSignature,
  };

  it('is opened by the leaf private key: PAN, expiry, nonce and its signature', async () => {
    const { certificates, leafPrivateKey } = await appleLikeTestChain();
    const payload = encryptApplePayPassData(await leafPublicKey(certificates, NOW), passData);

    expect(Buffer.from(payload.ephemeralPublicKey, 'base64')).toHaveLength(65);
    expect(Buffer.from(payload.activationData, 'base64')).toHaveLength(32);
    expect(payload.encryptedPassData).not.toContain(PAN);
    expect(Buffer.from(payload.encryptedPassData, 'base64').includes(PAN)).toBe(false);
    expect(decryptApplePayPassData(leafPrivateKey, payload, nonce)).toEqual({
      primaryAccountNumber: PAN,
      expiration: '03/29',
      nonce,
      nonceSignature,
    });
  });

  it('uses a fresh ephemeral key each time', async () => {
    const { certificates } = await appleLikeTestChain();
    const key = await leafPublicKey(certificates, NOW);
    const [first, second] = [encryptApplePayPassData(key, passData), encryptApplePayPassData(key, passData)];
    expect(first.ephemeralPublicKey).not.toBe(second.ephemeralPublicKey);
    expect(first.encryptedPassData).not.toBe(second.encryptedPassData);
  });

  it('cannot be opened with another key, another nonce or an altered byte', async () => {
    const { certificates, leafPrivateKey } = await appleLikeTestChain();
    const other = await appleLikeTestChain();
    const payload = encryptApplePayPassData(await leafPublicKey(certificates, NOW), passData);

    expect(() => decryptApplePayPassData(other.leafPrivateKey, payload, nonce)).toThrow();
    expect(() =>
      decryptApplePayPassData(leafPrivateKey, payload, Buffer.from('other').toString('base64')),
    ).toThrow();
    const altered = Buffer.from(payload.encryptedPassData, 'base64');
    altered[20] ^= 1;
    expect(() =>
      decryptApplePayPassData(
        leafPrivateKey,
        { ...payload, encryptedPassData: altered.toString('base64') },
        nonce,
      ),
    ).toThrow();
  });

  it('refuses a chain whose leaf the next certificate did not sign', async () => {
    const { certificates } = await appleLikeTestChain();
    const stranger = await appleLikeTestChain();
    await expect(leafPublicKey([certificates[0], stranger.certificates[1]], NOW)).rejects.toMatchObject({
      code: 'validation_error',
      details: [{ field: 'certificates[0]', message: 'is not signed by certificates[1]' }],
    });
  });

  it('refuses an expired leaf, a leaf that is not P-256, garbage and an empty chain', async () => {
    const expired = await appleLikeTestChain({ notAfter: new Date(NOW.getTime() - 1000) });
    await expect(leafPublicKey(expired.certificates, NOW)).rejects.toMatchObject({
      details: [{ field: 'certificates[0]', message: 'is not valid now' }],
    });
    const p384 = await appleLikeTestChain({ leafCurve: 'P-384' });
    await expect(leafPublicKey(p384.certificates, NOW)).rejects.toMatchObject({
      details: [{ field: 'certificates[0]', message: 'must hold an EC P-256 public key' }],
    });
    await expect(leafPublicKey(['bm90IGEgY2VydA=='], NOW)).rejects.toMatchObject({
      code: 'validation_error',
    });
    await expect(leafPublicKey([], NOW)).rejects.toMatchObject({ code: 'validation_error' });
  });
});

describe("Google Pay Opaque Payment Card (Google's documented OpenPGP format)", () => {
  it('is decrypted by Google and carries the issuer signature, the card and the destination', async () => {
    const google = await readPrivateKey(await generateOpenPgpKey('google'));
    const issuer = await readPrivateKey(await generateOpenPgpKey('issuer'));
    const opc = await sealGoogleOpc(
      googleOpaquePaymentCard({
        pan: PAN,
        expMonth: 3,
        expYear: 2029,
        walletAccountId: 'w-1',
        deviceId: 'd-1',
      }),
      { issuerSigningKey: issuer, googleEncryptionKey: google.toPublic() as openpgp.PublicKey },
    );

    expect(opc).toMatch(/^[A-Za-z0-9+/]+=*$/);
    expect(Buffer.from(opc, 'base64').includes(PAN)).toBe(false);
    await expect(
      openGoogleOpc(opc, { googleDecryptionKey: google, issuerVerificationKey: issuer.toPublic() }),
    ).resolves.toEqual({
      protocolHeader: { version: 1 },
      validationContext: { walletAccountId: 'w-1', deviceId: 'd-1' },
      paymentCard: { accountNumber: PAN, expiryMonth: '03', expiryYear: '29' },
    });

    const stranger = await readPrivateKey(await generateOpenPgpKey('stranger'));
    await expect(
      openGoogleOpc(opc, { googleDecryptionKey: stranger, issuerVerificationKey: issuer.toPublic() }),
    ).rejects.toThrow();
    await expect(
      openGoogleOpc(opc, { googleDecryptionKey: google, issuerVerificationKey: stranger.toPublic() }),
    ).rejects.toThrow();
  });
});
