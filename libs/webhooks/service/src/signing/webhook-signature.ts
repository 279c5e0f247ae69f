import { createHmac, randomBytes } from 'node:crypto';
import { ed25519Signature, SigningKey } from './signing-keys';

// ---------------------------------------------------------------------------------------------------
// Standard Webhooks signatures (https://www.standardwebhooks.com): headers webhook-id, webhook-timestamp
// and webhook-signature, a space-separated list of `<version>,<base64>` over `{id}.{timestamp}.{body}`.
// `v1a` is the platform's Ed25519 key (one per overlapping key), `v1` HMAC-SHA256 with the subscription's
// own secret so the official Standard Webhooks libraries verify deliveries unchanged.
// ---------------------------------------------------------------------------------------------------

const SECRET_PREFIX = 'whsec_';

/** A new subscription secret: `whsec_` and 32 random bytes in base64, as Standard Webhooks defines it. */
export const newSubscriptionSecret = (): string => `${SECRET_PREFIX}${randomBytes(32).toString('base64')}`;

function hmacSignature(secret: string, content: string): string {
  const key = Buffer.from(secret.slice(SECRET_PREFIX.length), 'base64');
  return `v1,${createHmac('sha256', key).update(content).digest('base64')}`;
}

export interface SignedHeaders {
  'webhook-id': string;
  'webhook-timestamp': string;
  'webhook-signature': string;
}

export function signWebhook(input: {
  id: string;
  timestamp: Date;
  body: string;
  keys: SigningKey[];
  secret: string;
}): SignedHeaders {
  const timestamp = String(Math.floor(input.timestamp.getTime() / 1000));
  const content = `${input.id}.${timestamp}.${input.body}`;
  const signatures = [
    ...input.keys.map((key) => ed25519Signature(key, content)),
    hmacSignature(input.secret, content),
  ];
  return {
    'webhook-id': input.id,
    'webhook-timestamp': timestamp,
    'webhook-signature': signatures.join(' '),
  };
}
