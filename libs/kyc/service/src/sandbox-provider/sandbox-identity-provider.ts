import type { Environment } from '@cip/shared/contracts';
import { loadOrCreateSecret } from '@cip/shared/runtime';
import { createHmac, randomBytes, randomUUID, timingSafeEqual } from 'node:crypto';
import type { IdentityVerificationProvider, VerificationSessionRequest } from '../kyc.ports';
import { HOSTED_KYC_PATH } from '@cip/kyc/contract';

/** Path of the hosted verification page served by the platform itself (no API key: the link is the key). */

/**
 * The key signing hosted links: KYC_LINK_SECRET when the deployment sets it, else generated on first start
 * under DATA_DIR/secrets/kyc-link-key, so the platform and the CLI sign links alike.
 */
export function loadKycLinkKey(options: { dataDir: string; fromEnv?: string }): string {
  return loadOrCreateSecret({
    dataDir: options.dataDir,
    name: 'kyc-link-key',
    fromEnv: options.fromEnv,
    generate: () => randomBytes(32).toString('base64url'),
  });
}

const KYC_ID = /^kyc-[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;
const SIGNATURE = /^[A-Za-z0-9_-]{43}$/;

/**
 * The built-in identity-verification provider: its hosted flow is a page of this platform. A link is
 * `{publicBaseUrl}/hosted/kyc/{kycId}.{signature}`, the signature an HMAC over the environment, the KYC
 * and its current session under a key kept with the platform's secrets. Links are therefore unguessable,
 * never stored, and die by themselves when a resume opens a new session (a new reference).
 */
export class SandboxIdentityProvider implements IdentityVerificationProvider {
  readonly name = 'sandbox-idv';
  private baseUrl: string | null = null;

  constructor(private readonly linkKey: string) {}

  /** The address users reach the platform at; known once the platform listens (PUBLIC_BASE_URL or its URL). */
  usePublicBaseUrl(url: string): void {
    this.baseUrl = url.replace(/\/+$/, '');
  }

  async openSession(_request: VerificationSessionRequest): Promise<{ referenceId: string }> {
    return { referenceId: `sbx_${randomUUID().replace(/-/g, '')}` };
  }

  accessUrl(session: { environment: Environment; kycId: string; referenceId: string }): string {
    if (!this.baseUrl) throw new Error('The public base URL of hosted KYC links is not set yet');
    return `${this.baseUrl}${HOSTED_KYC_PATH}/${session.kycId}.${this.sign(session)}`;
  }

  /** Splits a link token into the KYC it names and its signature; null when it cannot be one of ours. */
  parseToken(token: string): { kycId: string; signature: string } | null {
    const [kycId, signature, ...rest] = token.split('.');
    if (rest.length || !KYC_ID.test(kycId ?? '') || !SIGNATURE.test(signature ?? '')) return null;
    return { kycId, signature };
  }

  /** Whether `signature` is the one of this KYC's session in this environment (constant-time). */
  verifies(
    signature: string,
    session: { environment: Environment; kycId: string; referenceId: string },
  ): boolean {
    return timingSafeEqual(Buffer.from(signature), Buffer.from(this.sign(session)));
  }

  private sign({
    environment,
    kycId,
    referenceId,
  }: {
    environment: Environment;
    kycId: string;
    referenceId: string;
  }) {
    return createHmac('sha256', this.linkKey)
      .update(`${environment}\n${kycId}\n${referenceId}`)
      .digest('base64url');
  }
}
