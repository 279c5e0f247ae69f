import type * as openpgp from 'openpgp';

// openpgp.js is loaded on first use: every service process loads this context's code, and loading the
// library took ~0.15 s of each one's start; only a Google Pay provisioning needs it.
const openPgp = () => import('openpgp');

// ---------------------------------------------------------------------------------------------------
// Google Pay push provisioning: the Opaque Payment Card (OPC) the app hands to the TapAndPay SDK's
// pushTokenize. Google documents its format publicly (developers.google.com/pay, "Google Opaque Payment
// Card specification"): the UTF-8 JSON `{protocolHeader: {version}, validationContext: {...}, paymentCard:
// {accountNumber, expiryMonth, expiryYear}}`, signed with the issuer's OpenPGP key and encrypted to
// Google's OpenPGP key (RFC 4880 / 9580), then standard base64 (RFC 4648 section 4). That is what is built
// here, with openpgp.js. One stand-in, as documented in the OpenAPI description: Google's validation
// context names a destination (its documented member is `serverSessionId`, which this API does not
// receive), so it carries the destination the API does receive, `walletAccountId` and `deviceId`.
// ---------------------------------------------------------------------------------------------------

/** The OPC's protocol version, as Google's example has it. */
export const GOOGLE_OPC_VERSION = 1;

export interface GoogleOpaquePaymentCard {
  protocolHeader: { version: number };
  validationContext: { walletAccountId: string; deviceId: string };
  paymentCard: { accountNumber: string; expiryMonth: string; expiryYear: string };
}

/** The keys of an environment: the issuer's signing key, and Google's public encryption key. */
export interface GooglePayOpcKeys {
  issuerSigningKey: openpgp.PrivateKey;
  googleEncryptionKey: openpgp.PublicKey;
}

export function googleOpaquePaymentCard(input: {
  pan: string;
  expMonth: number;
  expYear: number;
  walletAccountId: string;
  deviceId: string;
}): GoogleOpaquePaymentCard {
  return {
    protocolHeader: { version: GOOGLE_OPC_VERSION },
    validationContext: { walletAccountId: input.walletAccountId, deviceId: input.deviceId },
    paymentCard: {
      accountNumber: input.pan,
      expiryMonth: String(input.expMonth).padStart(2, '0'),
      expiryYear: String(input.expYear % 100).padStart(2, '0'),
    },
  };
}

/** Signs and encrypts the OPC (OpenPGP), then base64: the value of `opaquePaymentCard`. */
export async function sealGoogleOpc(card: GoogleOpaquePaymentCard, keys: GooglePayOpcKeys): Promise<string> {
  const openpgp = await openPgp();
  const sealed = await openpgp.encrypt({
    message: await openpgp.createMessage({ text: JSON.stringify(card) }),
    encryptionKeys: keys.googleEncryptionKey,
    signingKeys: keys.issuerSigningKey,
    format: 'binary',
  });
  return Buffer.from(sealed).toString('base64');
}

/**
 * What Google does with it (for the sandbox's stand-in Google key and the tests): decrypt with Google's
 * private key and verify the issuer's signature; an unsigned or wrongly signed OPC is refused.
 */
export async function openGoogleOpc(
  opaquePaymentCard: string,
  keys: { googleDecryptionKey: openpgp.PrivateKey; issuerVerificationKey: openpgp.PublicKey },
): Promise<GoogleOpaquePaymentCard> {
  const openpgp = await openPgp();
  const { data, signatures } = await openpgp.decrypt({
    message: await openpgp.readMessage({ binaryMessage: Buffer.from(opaquePaymentCard, 'base64') }),
    decryptionKeys: keys.googleDecryptionKey,
    verificationKeys: keys.issuerVerificationKey,
    expectSigned: true,
  });
  await signatures[0]?.verified;
  return JSON.parse(data as string) as GoogleOpaquePaymentCard;
}

/** An OpenPGP key pair (ECC, Curve25519), armored: the issuer's signing key or the sandbox's Google key. */
export async function generateOpenPgpKey(name: string): Promise<string> {
  const openpgp = await openPgp();
  const { privateKey } = await openpgp.generateKey({
    type: 'ecc',
    userIDs: [{ name }],
    format: 'armored',
  });
  return privateKey;
}

export const readPrivateKey = async (armoredKey: string): Promise<openpgp.PrivateKey> =>
  (await openPgp()).readPrivateKey({ armoredKey });
