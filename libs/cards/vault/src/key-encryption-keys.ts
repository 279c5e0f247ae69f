import { loadOrCreateSecret, writeSecret } from '@cip/shared/runtime';
import { randomBytes, randomUUID } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';

/** A key ring as it is written: the active key's id and every key by id (32 bytes, base64). */
interface KeyRingDocument {
  active: string;
  keys: Record<string, string>;
}

function parseKeyRing(text: string, from: string): KeyRingDocument {
  const ring = JSON.parse(text) as KeyRingDocument;
  const keys = Object.entries(ring?.keys ?? {});
  if (typeof ring?.active !== 'string' || !ring.keys?.[ring.active]) {
    throw new Error(`${from} must be {"active": "<id>", "keys": {"<id>": "<32 bytes base64>"}}`);
  }
  for (const [id, key] of keys) {
    if (Buffer.from(key, 'base64').length !== 32) throw new Error(`${from}: key ${id} is not 32 bytes`);
  }
  return ring;
}

export const newKekId = (): string => `kek-${randomUUID()}`;
const newKeyRing = (): KeyRingDocument => {
  const id = newKekId();
  return { active: id, keys: { [id]: randomBytes(32).toString('base64') } };
};

/**
 * The vault's key-encryption keys (KEKs), the key material only. Which KEK is active is the vault store's
 * to say (`CardVaultStore.activeKekId`): one row every process checks inside its write, where a file read
 * by modification time could be seconds stale. The ring holds every KEK the store registers, and may hold
 * more for a moment (a key written by a rotation that crashed before registering it).
 */
export interface KeyEncryptionKeys {
  /** Whether the ring is fixed by configuration: a rotation then re-wraps under its first key only. */
  readonly configured: boolean;
  /** The ring's own active KEK: the configured one, or the file's (what a store without any registers). */
  activeId(): string;
  /** The KEK `id`; throws when the ring does not have it. */
  key(id: string): Buffer;
  /** Adds a new random KEK under `id` (only a ring that may change). */
  add(id: string): void;
  /** Removes every KEK but these, `active` the ring's active one (only a ring that may change). */
  retainOnly(active: string, ids: readonly string[]): void;
}

/**
 * KEKs from a file under DATA_DIR/secrets (`<environment>-card-vault-keks`, 0600, made on first start), or
 * from configuration (`fromConfig`, the same JSON, which wins: a deployment keeps its KEKs in its secret
 * store and rotates by putting the new key first there). Another process (the CLI) may add a key to the
 * file: a KEK id this ring does not know makes it read the file again.
 */
export class FileKeyEncryptionKeys implements KeyEncryptionKeys {
  readonly configured: boolean;
  private ring: KeyRingDocument;
  private readonly path: string;
  private readonly name: string;

  constructor(private readonly options: { dataDir: string; environment: string; fromConfig?: string }) {
    this.name = `${options.environment}-card-vault-keks`;
    this.path = join(options.dataDir, 'secrets', this.name);
    this.configured = Boolean(options.fromConfig);
    if (options.fromConfig) {
      this.ring = parseKeyRing(options.fromConfig, 'The configured card vault KEKs');
      return;
    }
    loadOrCreateSecret({
      dataDir: options.dataDir,
      name: this.name,
      generate: () => JSON.stringify(newKeyRing()),
    });
    this.ring = this.readFile();
  }

  activeId(): string {
    return this.ring.active;
  }

  key(id: string): Buffer {
    let key = this.ring.keys[id];
    if (key === undefined && !this.configured) {
      // Not by modification time: two writes within its granularity would hide the second.
      this.ring = this.readFile();
      key = this.ring.keys[id];
    }
    if (key === undefined) throw new Error(`The card vault has no key-encryption key ${id}`);
    return Buffer.from(key, 'base64');
  }

  add(id: string): void {
    if (this.configured) throw new Error('The configured card vault KEKs cannot change');
    const ring = this.readFile();
    this.write({ active: id, keys: { ...ring.keys, [id]: randomBytes(32).toString('base64') } });
  }

  retainOnly(active: string, ids: readonly string[]): void {
    if (this.configured) return;
    const ring = this.readFile();
    const keys = Object.fromEntries(Object.entries(ring.keys).filter(([id]) => ids.includes(id)));
    if (!keys[active]) throw new Error(`The card vault KEK file has no key ${active}`);
    this.write({ active, keys });
  }

  private write(ring: KeyRingDocument): void {
    writeSecret({ dataDir: this.options.dataDir, name: this.name, value: JSON.stringify(ring) });
    this.ring = this.readFile();
  }

  private readFile(): KeyRingDocument {
    return parseKeyRing(readFileSync(this.path, 'utf8'), this.path);
  }
}
