import { createCipheriv, createDecipheriv } from 'node:crypto';
import { pooledRandomBytes } from './pooled-random-bytes';

/**
 * AES-256-GCM sealing of small values at rest (webhook subscription secrets, the personal-data keys): the
 * sealed form is `v1.<iv>.<tag>.<ciphertext>` in base64. `context` is authenticated but not stored (GCM's
 * additional data): a value sealed for one owner does not open for another, so sealed values cannot be
 * swapped between records.
 */
export class SecretBox {
  constructor(private readonly key: Buffer) {
    if (key.length !== 32) throw new Error('A secret box key must be 32 bytes');
  }

  seal(plain: string | Buffer, context?: string): string {
    const iv = pooledRandomBytes(12);
    const cipher = createCipheriv('aes-256-gcm', this.key, iv);
    if (context !== undefined) cipher.setAAD(Buffer.from(context, 'utf8'));
    const sealed = Buffer.concat([
      typeof plain === 'string' ? cipher.update(plain, 'utf8') : cipher.update(plain),
      cipher.final(),
    ]);
    return [
      'v1',
      iv.toString('base64'),
      cipher.getAuthTag().toString('base64'),
      sealed.toString('base64'),
    ].join('.');
  }

  /** The plain bytes; throws when the value was not sealed with this key and context (or was altered). */
  openBytes(sealed: string, context?: string): Buffer {
    const [version, iv, tag, data] = sealed.split('.');
    if (version !== 'v1' || iv === undefined || tag === undefined || data === undefined) {
      throw new Error(`Unknown sealed value version ${version}`);
    }
    const decipher = createDecipheriv('aes-256-gcm', this.key, Buffer.from(iv, 'base64'));
    if (context !== undefined) decipher.setAAD(Buffer.from(context, 'utf8'));
    decipher.setAuthTag(Buffer.from(tag, 'base64'));
    return Buffer.concat([decipher.update(Buffer.from(data, 'base64')), decipher.final()]);
  }

  open(sealed: string, context?: string): string {
    return this.openBytes(sealed, context).toString('utf8');
  }
}
