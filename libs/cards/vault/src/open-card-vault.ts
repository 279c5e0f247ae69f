import { loadOrCreateSecret } from '@cip/shared/runtime';
import { randomBytes } from 'node:crypto';
import { join } from 'node:path';
import { CardVault, type CardVaultKeys } from './card-vault';
import { FileKeyEncryptionKeys } from './key-encryption-keys';
import { SqliteCardVaultStore } from './sqlite-card-vault-store';

/** Keys a deployment may supply (from its secret store); each one missing is made on first start. */
export interface ConfiguredCardVaultKeys {
  /** The KEK ring, JSON: `{"active": "<id>", "keys": {"<id>": "<32 bytes base64>"}}`. */
  keks?: string;
  /** 32 bytes, base64. */
  indexKey?: string;
  /** The CVK pair A|B, 32 hex digits. */
  cvk?: string;
  /** The PVK pair A|B, 32 hex digits. */
  pvk?: string;
}

function secret(
  options: { dataDir: string; environment: string },
  name: string,
  fromConfig: string | undefined,
  generate: () => string,
  decode: (value: string) => Buffer,
  bytes: number,
): Buffer {
  const value = decode(
    loadOrCreateSecret({
      dataDir: options.dataDir,
      name: `${options.environment}-card-vault-${name}`,
      fromEnv: fromConfig,
      generate,
    }),
  );
  if (value.length !== bytes) throw new Error(`The card vault ${name} must be ${bytes} bytes`);
  return value;
}

/** The vault's index key and verification keys: configured, or generated under DATA_DIR/secrets (0600). */
export function loadCardVaultKeys(options: {
  dataDir: string;
  environment: string;
  configured?: ConfiguredCardVaultKeys;
}): CardVaultKeys {
  const base64 = (value: string) => Buffer.from(value, 'base64');
  const hex = (value: string) => Buffer.from(/^[0-9a-fA-F]+$/.test(value) ? value : '', 'hex');
  const random = (bytes: number, encoding: BufferEncoding) => () => randomBytes(bytes).toString(encoding);
  return {
    indexKey: secret(options, 'index-key', options.configured?.indexKey, random(32, 'base64'), base64, 32),
    cvk: secret(options, 'cvk', options.configured?.cvk, random(16, 'hex'), hex, 16),
    pvk: secret(options, 'pvk', options.configured?.pvk, random(16, 'hex'), hex, 16),
  };
}

/** The vault file of one environment under DATA_DIR. */
export const cardVaultFile = (dataDir: string, environment: string): string =>
  join(dataDir, `${environment}-vault.sqlite`);

/**
 * The embedded runtime's vault of one environment: `DATA_DIR/<environment>-vault.sqlite` and its keys.
 * The store checkpoints the file's WAL itself, off the request thread, unless the runtime's checkpointer
 * runs it (`checkpointedElsewhere`: the platform adds `cardVaultFile` to the embedded infrastructure's).
 */
export function openEmbeddedCardVault(options: {
  dataDir: string;
  environment: string;
  configured?: ConfiguredCardVaultKeys;
  checkpointedElsewhere?: boolean;
}): CardVault {
  return new CardVault(
    SqliteCardVaultStore.open(cardVaultFile(options.dataDir, options.environment), {
      checkpointedElsewhere: options.checkpointedElsewhere,
    }),
    new FileKeyEncryptionKeys({ ...options, fromConfig: options.configured?.keks }),
    loadCardVaultKeys(options),
  );
}
