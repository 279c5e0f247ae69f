import { createHmac, randomBytes } from 'node:crypto';

// ---------------------------------------------------------------------------------------------------
// Standard Webhooks signatures (https://www.standardwebhooks.com), shared by every outbound call the
// platform signs (webhook deliveries, real-time authorization decisioning): headers webhook-id,
// webhook-timestamp and webhook-signature, a space-separated list of `<version>,<base64>` over
// `{id}.{timestamp}.{body}`. `v1` is HMAC-SHA256 with the receiver's own `whsec_` secret, so the official
// Standard Webhooks libraries verify it unchanged; a caller may add its own signatures (`v1a`, Ed25519).
// ---------------------------------------------------------------------------------------------------

const SECRET_PREFIX = 'whsec_';

/** A new receiver secret: `whsec_` and 32 random bytes in base64, as Standard Webhooks defines it. */
export const newStandardWebhookSecret = (): string =>
  `${SECRET_PREFIX}${randomBytes(32).toString('base64')}`;

function hmacSignature(secret: string, content: string): string {
  const key = Buffer.from(secret.slice(SECRET_PREFIX.length), 'base64');
  return `v1,${createHmac('sha256', key).update(content).digest('base64')}`;
}

export interface SignedHeaders {
  'webhook-id': string;
  'webhook-timestamp': string;
  'webhook-signature': string;
}

/**
 * The Standard Webhooks headers of one message. `signatures` adds further signatures of the signed content
 * (`{id}.{timestamp}.{body}`) before the `v1` HMAC.
 */
export function signStandardWebhook(input: {
  id: string;
  timestamp: Date;
  body: string;
  secret: string;
  signatures?: (content: string) => string[];
}): SignedHeaders {
  const timestamp = String(Math.floor(input.timestamp.getTime() / 1000));
  const content = `${input.id}.${timestamp}.${input.body}`;
  return {
    'webhook-id': input.id,
    'webhook-timestamp': timestamp,
    'webhook-signature': [...(input.signatures?.(content) ?? []), hmacSignature(input.secret, content)].join(
      ' ',
    ),
  };
}
