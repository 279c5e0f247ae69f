import 'reflect-metadata';
import type { X509Certificate } from '@peculiar/x509';
import { createPrivateKey, KeyObject, webcrypto } from 'node:crypto';

const EC = { name: 'ECDSA', namedCurve: 'P-256', hash: 'SHA-256' } as const;
const YEAR_MS = 365 * 24 * 3600 * 1000;

/**
 * A certificate chain like the one Apple's wallet hands an app (a leaf signed by a sub-CA), with the
 * leaf's private key: what the tests and a distributor's sandbox integration open the pass data with.
 */
export async function appleLikeTestChain(
  options: { leafCurve?: 'P-256' | 'P-384'; notAfter?: Date; now?: Date } = {},
): Promise<{ certificates: string[]; leafPrivateKey: KeyObject }> {
  // Loaded on use, as in apple-pay-pass-data.ts (the services load this module too).
  const x509 = await import('@peculiar/x509');
  const now = options.now ?? new Date();
  const subtle = webcrypto.subtle;
  const caKeys = (await subtle.generateKey(EC, true, ['sign', 'verify'])) as webcrypto.CryptoKeyPair;
  const ca = await x509.X509CertificateGenerator.createSelfSigned({
    serialNumber: '01',
    name: 'CN=Test Apple Pay Sub-CA',
    notBefore: new Date(now.getTime() - YEAR_MS),
    notAfter: new Date(now.getTime() + YEAR_MS),
    keys: caKeys,
    signingAlgorithm: EC,
    extensions: [new x509.BasicConstraintsExtension(true, undefined, true)],
  });
  const leafAlgorithm = { ...EC, namedCurve: options.leafCurve ?? 'P-256' };
  const leafKeys = (await subtle.generateKey(leafAlgorithm, true, [
    'sign',
    'verify',
  ])) as webcrypto.CryptoKeyPair;
  const leaf = await x509.X509CertificateGenerator.create({
    serialNumber: '02',
    subject: 'CN=Test Apple Pay Leaf',
    issuer: ca.subject,
    notBefore: new Date(now.getTime() - YEAR_MS),
    notAfter: options.notAfter ?? new Date(now.getTime() + YEAR_MS),
    publicKey: leafKeys.publicKey,
    signingKey: caKeys.privateKey,
    signingAlgorithm: EC,
  });
  const leafPrivateKey = createPrivateKey({
    key: Buffer.from(await subtle.exportKey('pkcs8', leafKeys.privateKey)),
    format: 'der',
    type: 'pkcs8',
  });
  const der = (certificate: X509Certificate) => Buffer.from(certificate.rawData).toString('base64');
  return { certificates: [der(leaf), der(ca)], leafPrivateKey };
}
