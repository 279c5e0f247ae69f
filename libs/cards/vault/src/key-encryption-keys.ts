import { loadOrCreateSecret, writeSecret } from '@cip/shared/runtime';
import { randomBytes, randomUUID } from 'node:crypto';
import { readFileSync, statSync } from 'node:fs';
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

const newKekId = () => `kek-${randomUUID()}`;
const newKeyRing = (): KeyRingDocument => {
  const id = newKekId();
  return { active: id, keys: { [id]: randomBytes(32).toString('base64') } };
};

/**
 * The vault's key-encryption keys (KEKs): the active one wraps new data keys; the others are kept only
 * until a rotation has re-wrapped every data key they wrapped.
 */
export interface KeyEncryptionKeys {
  activeId(): string;
  /** The KEK `id`; throws when the ring does not have it. */
  key(id: string): Buffer;
  /** Makes a new KEK the active one, when the ring may change (a configured ring cannot), and its id. */
  beginRotation(): string;
  /** Removes every KEK but the active one: called once no data key is wrapped by them any more. */
  retireInactive(): void;
}

/**
 * KEKs from a file under DATA_DIR/secrets (`<environment>-card-vault-keks`, 0600, made on first start), or
 * from configuration (`fromConfig`, the same JSON, which wins: a deployment keeps its KEKs in its secret
 * store and rotates by putting the new key first there). Another process (the CLI) may rotate the file:
 * the ring reads it again when it changed, so new data keys are wrapped by the new KEK and data keys
 * re-wrapped by the other process still open.
 */
export class FileKeyEncryptionKeys implements KeyEncryptionKeys {
  private ring: KeyRingDocument;
  private readonly path: string;
  private readonly name: string;
  private readMtimeMs = 0;

  constructor(private readonly options: { dataDir: string; environment: string; fromConfig?: string }) {
    this.name = `${options.environment}-card-vault-keks`;
    this.path = join(options.dataDir, 'secrets', this.name);
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
    this.refresh();
    return this.ring.active;
  }

  key(id: string): Buffer {
    let key = this.ring.keys[id];
    if (key === undefined && !this.options.fromConfig) {
      // Not by modification time: two writes within its granularity would hide the second.
      this.ring = this.readFile();
      key = this.ring.keys[id];
    }
    if (key === undefined) throw new Error(`The card vault has no key-encryption key ${id}`);
    return Buffer.from(key, 'base64');
  }

  beginRotation(): string {
    if (this.options.fromConfig) return this.ring.active;
    this.refresh();
    const id = newKekId();
    this.write({ active: id, keys: { ...this.ring.keys, [id]: randomBytes(32).toString('base64') } });
    return id;
  }

  retireInactive(): void {
    if (this.options.fromConfig) return;
    this.refresh();
    this.write({ active: this.ring.active, keys: { [this.ring.active]: this.ring.keys[this.ring.active] } });
  }

  private write(ring: KeyRingDocument): void {
    writeSecret({ dataDir: this.options.dataDir, name: this.name, value: JSON.stringify(ring) });
    this.ring = this.readFile();
  }

  private refresh(): void {
    if (this.options.fromConfig) return;
    if (statSync(this.path).mtimeMs !== this.readMtimeMs) this.ring = this.readFile();
  }

  private readFile(): KeyRingDocument {
    this.readMtimeMs = statSync(this.path).mtimeMs;
    return parseKeyRing(readFileSync(this.path, 'utf8'), this.path);
  }
}
