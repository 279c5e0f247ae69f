import type { Environment } from '@cip/shared/contracts';
import { Clock, loadOrCreateSecret } from '@cip/shared/runtime';
import {
  createHash,
  createPrivateKey,
  createPublicKey,
  generateKeyPairSync,
  KeyObject,
  sign,
} from 'node:crypto';
import { renameSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

// ---------------------------------------------------------------------------------------------------
// The platform's Ed25519 webhook signing keys, one ring per environment: the current key, and during a
// rotation's overlap the previous one, whose signature is still sent so receivers can switch keys at
// their own pace.
// ---------------------------------------------------------------------------------------------------

interface StoredKey {
  /** PKCS#8 DER, base64. */
  privateKey: string;
  createdAt: string;
}

interface StoredRing {
  current: StoredKey;
  previous: (StoredKey & { retiresAt: string }) | null;
}

export interface SigningKey {
  keyId: string;
  /** Raw 32-byte public key, base64 (what GET /v1/webhook-subscriptions/public-key returns). */
  publicKey: string;
  /** The public key as SPKI PEM. */
  pem: string;
  privateKey: KeyObject;
  createdAt: string;
  /** Only on the previous key during an overlap. */
  retiresAt?: string;
}

export const signingKeysFile = (environment: Environment) => `webhook-signing-keys-${environment}`;

function newStoredKey(now: Date): StoredKey {
  const { privateKey } = generateKeyPairSync('ed25519');
  return {
    privateKey: privateKey.export({ format: 'der', type: 'pkcs8' }).toString('base64'),
    createdAt: now.toISOString(),
  };
}

/** A ring as stored, or a bare base64 PKCS#8 key (how a deployment passes it in the environment). */
function parseRing(text: string): StoredRing {
  if (text.startsWith('{')) return JSON.parse(text) as StoredRing;
  return { current: { privateKey: text, createdAt: new Date(0).toISOString() }, previous: null };
}

function toSigningKey(stored: StoredKey, retiresAt?: string): SigningKey {
  const privateKey = createPrivateKey({
    key: Buffer.from(stored.privateKey, 'base64'),
    format: 'der',
    type: 'pkcs8',
  });
  const publicKey = createPublicKey(privateKey);
  // The SPKI encoding of an Ed25519 key ends with the 32 raw key bytes.
  const raw = publicKey.export({ format: 'der', type: 'spki' }).subarray(-32);
  return {
    keyId: `whk_${createHash('sha256').update(raw).digest('hex').slice(0, 16)}`,
    publicKey: raw.toString('base64'),
    pem: publicKey.export({ format: 'pem', type: 'spki' }).toString(),
    privateKey,
    createdAt: stored.createdAt,
    ...(retiresAt ? { retiresAt } : {}),
  };
}

/**
 * The signing keys of one environment. Generated on the first start under DATA_DIR/secrets unless the
 * deployment passes a key; the file is re-read when the CLI rotates it, so a running platform switches
 * keys without a restart.
 */
export class SigningKeyRing {
  private ring: { current: SigningKey; previous: SigningKey | null };
  private readonly path: string;
  private checkedAt = 0;
  private modifiedAt = 0;

  constructor(
    private readonly options: { dataDir: string; environment: Environment; fromEnv?: string },
    private readonly clock: Clock,
  ) {
    this.path = join(options.dataDir, 'secrets', signingKeysFile(options.environment));
    this.ring = this.load();
  }

  private load(): { current: SigningKey; previous: SigningKey | null } {
    const stored = parseRing(
      loadOrCreateSecret({
        dataDir: this.options.dataDir,
        name: signingKeysFile(this.options.environment),
        fromEnv: this.options.fromEnv,
        generate: () => JSON.stringify({ current: newStoredKey(this.clock.now()), previous: null }),
      }),
    );
    if (!this.options.fromEnv) this.modifiedAt = statSync(this.path).mtimeMs;
    return {
      current: toSigningKey(stored.current),
      previous: stored.previous ? toSigningKey(stored.previous, stored.previous.retiresAt) : null,
    };
  }

  /** Re-reads the file when it changed (checked at most once a second). */
  private refresh(): void {
    if (this.options.fromEnv) return;
    const now = Date.now();
    if (now - this.checkedAt < 1000) return;
    this.checkedAt = now;
    if (statSync(this.path).mtimeMs !== this.modifiedAt) this.ring = this.load();
  }

  current(): SigningKey {
    this.refresh();
    return this.ring.current;
  }

  /** The keys that sign now: the current one, and the previous one until it retires. */
  signingKeys(): SigningKey[] {
    this.refresh();
    const { current, previous } = this.ring;
    return previous?.retiresAt && Date.parse(previous.retiresAt) > this.clock.now().getTime()
      ? [current, previous]
      : [current];
  }
}

/**
 * Replaces the current key of an environment with a new one; the old key keeps signing beside it for
 * `overlapMs` (CLI `webhooks rotate-signing-key`). Written atomically (temp file + rename).
 */
export function rotateSigningKey(options: {
  dataDir: string;
  environment: Environment;
  overlapMs: number;
  now: Date;
}): { current: SigningKey; previous: SigningKey } {
  const name = signingKeysFile(options.environment);
  const generate = () => JSON.stringify({ current: newStoredKey(options.now), previous: null });
  const stored = parseRing(loadOrCreateSecret({ dataDir: options.dataDir, name, generate }));
  const previous = {
    ...stored.current,
    retiresAt: new Date(options.now.getTime() + options.overlapMs).toISOString(),
  };
  const rotated: StoredRing = { current: newStoredKey(options.now), previous };
  const path = join(options.dataDir, 'secrets', name);
  const temporary = `${path}.${process.pid}.tmp`;
  writeFileSync(temporary, `${JSON.stringify(rotated)}\n`, { mode: 0o600 });
  renameSync(temporary, path);
  return { current: toSigningKey(rotated.current), previous: toSigningKey(previous, previous.retiresAt) };
}

/** `v1a,<base64 Ed25519 signature>` of the Standard Webhooks content `{id}.{timestamp}.{body}`. */
export function ed25519Signature(key: SigningKey, content: string): string {
  return `v1a,${sign(null, Buffer.from(content), key.privateKey).toString('base64')}`;
}
