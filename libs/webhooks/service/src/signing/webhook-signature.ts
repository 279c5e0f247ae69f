import { newStandardWebhookSecret, signStandardWebhook, type SignedHeaders } from '@cip/shared/runtime';
import { ed25519Signature, SigningKey } from './signing-keys';

// ---------------------------------------------------------------------------------------------------
// Webhook deliveries carry the Standard Webhooks headers (`signStandardWebhook` in @cip/shared/runtime):
// `v1a` is the platform's Ed25519 key (one per overlapping key), `v1` HMAC-SHA256 with the subscription's
// own secret so the official Standard Webhooks libraries verify deliveries unchanged.
// ---------------------------------------------------------------------------------------------------

export type { SignedHeaders };

/** A new subscription secret: `whsec_` and 32 random bytes in base64, as Standard Webhooks defines it. */
export const newSubscriptionSecret = newStandardWebhookSecret;

export function signWebhook(input: {
  id: string;
  timestamp: Date;
  body: string;
  keys: SigningKey[];
  secret: string;
}): SignedHeaders {
  return signStandardWebhook({
    id: input.id,
    timestamp: input.timestamp,
    body: input.body,
    secret: input.secret,
    signatures: (content) => input.keys.map((key) => ed25519Signature(key, content)),
  });
}
