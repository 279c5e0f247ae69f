import { loadOrCreateSecret } from '@cip/shared/runtime';
import { randomBytes } from 'node:crypto';
import { join } from 'node:path';
import { CardVault, type CardVaultKeys } from './card-vault';
import { FileKeyEncryptionKeys, newKekId } from './key-encryption-keys';
import { MongoCardVaultStore } from './mongo-card-vault-store';
import { PostgresCardVaultStore } from './postgres-card-vault-store';
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
  /** Observes each group commit of new cards: how many it acknowledged (the platform's metrics). */
  onCommit?: (puts: number) => void;
}): CardVault {
  return new CardVault(
    SqliteCardVaultStore.open(cardVaultFile(options.dataDir, options.environment), {
      checkpointedElsewhere: options.checkpointedElsewhere,
      onCommit: options.onCommit,
    }),
    new FileKeyEncryptionKeys({ ...options, fromConfig: options.configured?.keks }),
    loadCardVaultKeys(options),
  );
}

/** The MongoDB database of one environment's vault: its own, beside the scopes' `cip_<scope>`. */
export const cardVaultDatabase = (environment: string): string => `cip_${environment}_vault`;

/** The configuration variables of the vault keys, as the platform names them (CARD_VAULT_*_<ENV>). */
const KEY_VARIABLES: Record<keyof ConfiguredCardVaultKeys, string> = {
  keks: 'CARD_VAULT_KEKS',
  indexKey: 'CARD_VAULT_INDEX_KEY',
  cvk: 'CARD_VAULT_CVK',
  pvk: 'CARD_VAULT_PVK',
};

/**
 * Every key of an environment's vault as the variables a server driver requires (CARD_VAULT_*_<ENV>), made
 * once and kept under DATA_DIR/secrets: what the split launcher gives the cards service of a topology on one
 * host. A deployment takes them from its secret store instead.
 */
export function cardVaultKeyVariables(dataDir: string, environment: string): Record<string, string> {
  const random = (bytes: number, encoding: BufferEncoding) => () => randomBytes(bytes).toString(encoding);
  const generators: Record<keyof ConfiguredCardVaultKeys, () => string> = {
    keks: () => {
      const id = newKekId();
      return JSON.stringify({ active: id, keys: { [id]: randomBytes(32).toString('base64') } });
    },
    indexKey: random(32, 'base64'),
    cvk: random(16, 'hex'),
    pvk: random(16, 'hex'),
  };
  return Object.fromEntries(
    (Object.keys(KEY_VARIABLES) as (keyof ConfiguredCardVaultKeys)[]).map((key) => [
      `${KEY_VARIABLES[key]}_${environment.toUpperCase()}`,
      loadOrCreateSecret({
        dataDir,
        name: `${environment}-card-vault-${key}-variable`,
        generate: generators[key],
      }),
    ]),
  );
}

/** The keys of a distributed vault, every one configured (why: `openMongoCardVault`). */
function distributedVaultKeys(options: { environment: string; configured: ConfiguredCardVaultKeys }): {
  keks: FileKeyEncryptionKeys;
  keys: CardVaultKeys;
} {
  const suffix = options.environment.toUpperCase();
  const missing = (Object.keys(KEY_VARIABLES) as (keyof ConfiguredCardVaultKeys)[])
    .filter((name) => !options.configured[name])
    .map((name) => `${KEY_VARIABLES[name]}_${suffix}`);
  if (missing.length > 0) {
    throw new Error(`The distributed card vault needs every key configured: set ${missing.join(', ')}`);
  }
  // Every key is configured (checked above): nothing is read from or written to a DATA_DIR.
  const keyOptions = { dataDir: '', environment: options.environment, configured: options.configured };
  return {
    keks: new FileKeyEncryptionKeys({ ...keyOptions, fromConfig: options.configured.keks }),
    keys: loadCardVaultKeys(keyOptions),
  };
}

/**
 * The distributed runtime's vault of one environment: `MongoCardVaultStore` on the database
 * `cip_<environment>_vault` of `mongoUrl` (a replica set: the store uses transactions), on a connection of
 * its own that `close` closes. Every key must be configured (from the deployment's secret store): the
 * processes of a distributed runtime share the vault, so a key generated on one host's disk would split
 * it (another index key lets a PAN in twice, another CVK gives other CVV2s) and would be lost with the
 * host. The KEK ring is then fixed by configuration: a rotation puts the new key in it, restarts, and
 * re-wraps (README, "MongoDB adapter"). Loads mongoose only when called.
 *
 * The cards service opens one per environment on the distributed driver (`serverCardsOptions`).
 */
export async function openMongoCardVault(options: {
  mongoUrl: string;
  environment: string;
  configured: ConfiguredCardVaultKeys;
  /** The database; `cardVaultDatabase(environment)` unless a test keeps its own. */
  database?: string;
  onCommit?: (puts: number) => void;
}): Promise<CardVault> {
  const { keks, keys } = distributedVaultKeys(options);
  // Loaded here rather than at the top: the embedded runtime imports this file and never uses mongoose.
  const mongoose = (await import('mongoose')).default;
  const connection = await mongoose
    .createConnection(options.mongoUrl, {
      dbName: options.database ?? cardVaultDatabase(options.environment),
    })
    .asPromise();
  const store = await MongoCardVaultStore.open(connection, {
    closesConnection: true,
    onCommit: options.onCommit,
  });
  return new CardVault(store, keks, keys);
}

/** The PostgreSQL schema of one environment's vault: its own, beside the scopes' schemas. */
export const cardVaultSchema = (environment: string): string => `card_vault_${environment}`;

/**
 * The distributed runtime's vault of one environment on PostgreSQL: `PostgresCardVaultStore` in the schema
 * `card_vault_<environment>` of `databaseUrl` (best a database and role of the vault's own: the role needs
 * privileges on that schema only), on a pool of its own that `close` ends. Every key must be configured, as
 * for `openMongoCardVault`. Loads pg only when called. The cards service opens one per environment on STORE_DRIVER=postgres.
 */
export async function openPostgresCardVault(options: {
  databaseUrl: string;
  environment: string;
  configured: ConfiguredCardVaultKeys;
  /** The schema; `cardVaultSchema(environment)` unless a test keeps its own. */
  schema?: string;
  /** Connections of the vault's pool (default 3). */
  poolSize?: number;
  onCommit?: (puts: number) => void;
}): Promise<CardVault> {
  const { keks, keys } = distributedVaultKeys(options);
  const store = await PostgresCardVaultStore.connect({
    url: options.databaseUrl,
    schema: options.schema ?? cardVaultSchema(options.environment),
    max: options.poolSize,
    onCommit: options.onCommit,
  });
  return new CardVault(store, keks, keys);
}
