// @peculiar/x509 reads its decorators' metadata through reflect-metadata, which Nest loads in the apps but a
// unit test does not.
import 'reflect-metadata';
import { DomainError } from '@cip/shared/contracts';
import {
  createCipheriv,
  createDecipheriv,
  createPublicKey,
  diffieHellman,
  generateKeyPairSync,
  hkdfSync,
  KeyObject,
  randomBytes,
} from 'node:crypto';

// ---------------------------------------------------------------------------------------------------
// Apple Pay in-app provisioning: the issuer encrypts the pass data (PAN, expiry, Apple's nonce and nonce
// signature) for the Apple Pay servers, under the public key of the leaf certificate Apple's wallet hands
// the app. Apple documents the fields publicly (PKAddPaymentPassRequest: encryptedPassData,
// activationData, ephemeralPublicKey; encryption scheme ECC_V2) but keeps the exact cryptographic scheme
// confidential to its issuers. This is a named, documented stand-in, `cip-applepay-ecc-standin-v1`:
//
// - certificates: base64 DER, leaf first, each signed by the next (verified); the leaf holds an EC P-256 key
//   and is valid now. Without Apple's root (confidential too) the chain is checked for consistency only.
// - ECDH on P-256 between a fresh ephemeral key and the leaf's public key (NIST SP 800-56A, Ephemeral
//   Unified Model); `ephemeralPublicKey` is its uncompressed point (65 bytes), base64.
// - KDF: HKDF-SHA256 (RFC 5869), input the shared secret, salt the nonce's bytes, info
//   `cip-applepay-ecc-standin-v1`, 32 bytes out: the AES-256 key, used once (the ephemeral key is fresh).
// - AES-256-GCM over the UTF-8 JSON `{primaryAccountNumber, expiration: "MM/YY", nonce, nonceSignature}`,
//   a random 12-byte IV, the ephemeral public key as additional data; `encryptedPassData` is base64 of
//   IV || ciphertext || 16-byte tag.
// - nonceSignature is Apple's device signature over the nonce, with a key only Apple can check: it is not
//   verified here, it is sealed into the pass data for Apple's servers, as Apple asks.
// - activationData: 32 random bytes, base64, the issuer's one-time value the token service accepts.
// Everything above is node:crypto (OpenSSL) and @peculiar/x509: no hand-written cryptography.
// ---------------------------------------------------------------------------------------------------

/** The stand-in's name, the HKDF info. */
export const APPLE_PAY_STAND_IN_SCHEME = 'cip-applepay-ecc-standin-v1';

const IV_BYTES = 12;
const TAG_BYTES = 16;
const MAX_CERTIFICATES = 3;

export interface ApplePayRequest {
  certificates: string[];
  nonce: string;
  nonceSignature: string;
}

export interface ApplePayPassData {
  primaryAccountNumber: string;
  /** MM/YY */
  expiration: string;
  nonce: string;
  nonceSignature: string;
}

export interface ApplePayProvisioningPayload {
  activationData: string;
  encryptedPassData: string;
  ephemeralPublicKey: string;
}

function refused(field: string, message: string): DomainError {
  return new DomainError('validation_error', `${field} ${message}`, [{ field, message }]);
}

/**
 * The leaf certificate's P-256 public key, once the chain (leaf first) parses, each certificate is signed by
 * the next, and every certificate is valid at `now`. Anything else is a `400 validation_error`.
 */
export async function leafPublicKey(certificates: string[], now: Date): Promise<KeyObject> {
  if (certificates.length < 1 || certificates.length > MAX_CERTIFICATES) {
    throw refused('certificates', `must hold 1 to ${MAX_CERTIFICATES} certificates, the leaf first`);
  }
  // Loaded on first use: every service process loads this context's code, and @peculiar/x509 with its ASN.1
  // modules took ~0.25 s of each one's start; only an Apple Pay provisioning reads certificates.
  const x509 = await import('@peculiar/x509');
  const chain = certificates.map((encoded, index) => {
    try {
      return new x509.X509Certificate(Buffer.from(encoded, 'base64'));
    } catch {
      throw refused(`certificates[${index}]`, 'is not a base64 DER X.509 certificate');
    }
  });
  for (const [index, certificate] of chain.entries()) {
    if (now < certificate.notBefore || now > certificate.notAfter) {
      throw refused(`certificates[${index}]`, 'is not valid now');
    }
    const issuer = chain[index + 1];
    if (issuer) {
      const signed = await certificate
        .verify({ publicKey: issuer.publicKey, signatureOnly: true })
        .catch(() => false);
      if (!signed) throw refused(`certificates[${index}]`, `is not signed by certificates[${index + 1}]`);
    }
  }
  const key = createPublicKey({ key: Buffer.from(chain[0].publicKey.rawData), format: 'der', type: 'spki' });
  if (key.asymmetricKeyType !== 'ec' || key.asymmetricKeyDetails?.namedCurve !== 'prime256v1') {
    throw refused('certificates[0]', 'must hold an EC P-256 public key');
  }
  return key;
}

function passDataKey(sharedSecret: Buffer, nonce: Buffer): Buffer {
  return Buffer.from(hkdfSync('sha256', sharedSecret, nonce, APPLE_PAY_STAND_IN_SCHEME, 32));
}

/** Seals the card's pass data for the leaf's holder (see the scheme above). */
export function encryptApplePayPassData(
  leafKey: KeyObject,
  passData: ApplePayPassData,
): ApplePayProvisioningPayload {
  const ephemeral = generateKeyPairSync('ec', { namedCurve: 'prime256v1' });
  const sharedSecret = diffieHellman({ privateKey: ephemeral.privateKey, publicKey: leafKey });
  const ephemeralPoint = ecPoint(ephemeral.publicKey);
  const key = passDataKey(sharedSecret, Buffer.from(passData.nonce, 'base64'));
  const iv = randomBytes(IV_BYTES);
  const cipher = createCipheriv('aes-256-gcm', key, iv).setAAD(ephemeralPoint);
  const sealed = Buffer.concat([cipher.update(JSON.stringify(passData), 'utf8'), cipher.final()]);
  return {
    activationData: randomBytes(32).toString('base64'),
    encryptedPassData: Buffer.concat([iv, sealed, cipher.getAuthTag()]).toString('base64'),
    ephemeralPublicKey: ephemeralPoint.toString('base64'),
  };
}

/**
 * What the holder of the leaf's private key (Apple's servers, for the stand-in: the sandbox and the tests)
 * does: the same ECDH and KDF from the other side, then AES-256-GCM opening (fails on any altered byte).
 */
export function decryptApplePayPassData(
  leafPrivateKey: KeyObject,
  payload: Pick<ApplePayProvisioningPayload, 'encryptedPassData' | 'ephemeralPublicKey'>,
  nonce: string,
): ApplePayPassData {
  const ephemeralPoint = Buffer.from(payload.ephemeralPublicKey, 'base64');
  const ephemeralKey = createPublicKey({
    key: {
      kty: 'EC',
      crv: 'P-256',
      x: b64url(ephemeralPoint.subarray(1, 33)),
      y: b64url(ephemeralPoint.subarray(33)),
    },
    format: 'jwk',
  });
  const sharedSecret = diffieHellman({ privateKey: leafPrivateKey, publicKey: ephemeralKey });
  const key = passDataKey(sharedSecret, Buffer.from(nonce, 'base64'));
  const sealed = Buffer.from(payload.encryptedPassData, 'base64');
  const decipher = createDecipheriv('aes-256-gcm', key, sealed.subarray(0, IV_BYTES)).setAAD(ephemeralPoint);
  decipher.setAuthTag(sealed.subarray(sealed.length - TAG_BYTES));
  const clear = Buffer.concat([
    decipher.update(sealed.subarray(IV_BYTES, sealed.length - TAG_BYTES)),
    decipher.final(),
  ]);
  return JSON.parse(clear.toString('utf8')) as ApplePayPassData;
}

/** The uncompressed point (0x04 || x || y) of a P-256 public key, from its JWK. */
function ecPoint(publicKey: KeyObject): Buffer {
  const jwk = publicKey.export({ format: 'jwk' });
  return Buffer.concat([
    Buffer.from([4]),
    Buffer.from(jwk.x ?? '', 'base64url'),
    Buffer.from(jwk.y ?? '', 'base64url'),
  ]);
}

const b64url = (bytes: Buffer) => bytes.toString('base64url');

/** Apple's `expiration` of the pass data: `MM/YY`. */
export const passDataExpiration = (expMonth: number, expYear: number): string =>
  `${String(expMonth).padStart(2, '0')}/${String(expYear % 100).padStart(2, '0')}`;
