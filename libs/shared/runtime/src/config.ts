import { SANDBOX_ZPK, ZPK_HEX } from '@cip/shared/iso8583';
import { resolve } from 'node:path';
// ox (viem's own address module) instead of viem's index: every service reads this config, and viem's
// index loads ~400 modules (~0.2-0.5 s of each process's start) for these two checks.
import * as Address from 'ox/Address';
import { z } from 'zod';

/** Settings read from the environment at start-up (docs/CONFIGURATION.md). */
export interface PlatformConfig {
  port: number;
  /** DASHBOARD_PORT: the operator app (the backoffice dashboard and its API); 0 binds any free port. */
  dashboardPort: number;
  /** DASHBOARD_PUBLIC_URL: where staff reach the dashboard (invitation links); defaults to its listening URL. */
  dashboardPublicUrl?: string;
  host: string;
  dataDir: string;
  /** SQLITE_WAL_LIMIT_MB: the size a SQLite file's WAL is started again past (see SqliteCheckpointer). */
  walLimitBytes: number;
  logLevel: string;
  bootstrapSandboxApiKey?: string;
  bootstrapProductionApiKey?: string;
  rateLimit: { ratePerSecond: number; burst: number };
  /**
   * How long a client may take to send a request's headers, and the whole request with its body, before
   * the connection is closed (408): slow or incomplete requests cannot hold connections open.
   */
  httpTimeouts: { headersMs: number; requestMs: number };
  /** Address users reach the platform at (hosted KYC links); defaults to the URL it listens on. */
  publicBaseUrl?: string;
  /** Key of hosted KYC link signatures; generated under DATA_DIR/secrets on first start when unset. */
  kycLinkSecret?: string;
  /**
   * PERSONAL_DATA_MASTER_KEY: 32 bytes (base64) wrapping the per-user keys that seal personal data in
   * events; generated under DATA_DIR/secrets on first start when unset.
   */
  personalDataMasterKey?: string;
  /** Wallets: deposit-address HD seeds (BIP-39 mnemonics), generated on first start when not given. */
  walletHdSeeds?: { sandbox?: string; production?: string };
  /**
   * Wallets: the EVM chain of each environment (deposits watched, withdrawals paid); an environment without
   * one uses the simulated chain (sandbox) or refuses withdrawals (production).
   */
  chains: { sandbox?: EvmChainConfig; production?: EvmChainConfig };
  webhooks: WebhookConfig;
  /** Cards: what each environment issues from, and its card vault's keys. */
  cards: { sandbox: CardIssuingConfig; production: CardIssuingConfig };
  /**
   * The card network's ISO 8583 endpoint the sandbox's issuer connects to (`CARD_NETWORK_ISO_ADDRESS`,
   * host:port: the simulator); none: no link, and no card payment is decided.
   */
  cardNetwork?: { host: string; port: number };
  /**
   * CARD_NETWORK_ZPK: the zone PIN key (TDES, 32 or 48 hex digits) DE-052 PIN blocks are encrypted under,
   * shared by the card network (the sandbox simulator) and the issuer; the public `SANDBOX_ZPK` when unset.
   */
  cardNetworkZpk: string;
  /** The sandbox card network the embedded platform runs (`SIMULATOR_*`). */
  simulator: SimulatorConfig;
  /** On-chain settlement of card payments (docs/API.md, "Settlement of card payments"). */
  settlement: SettlementConfig;
  /**
   * THREE_DS_BASE_URL: where the access control server (the 3DS host) is reached, `{3ds_host}` of the spec:
   * AReqs go to `<it>/<environment>/areq`. Unset: `/3ds/acs` on the platform's own listening address.
   */
  threeDsBaseUrl?: string;
  /**
   * THREE_DS_AUTHENTICATION_VALUE_KEY_<ENV>: 32 bytes (base64) keying the ACS's authentication values (CAVV);
   * generated under DATA_DIR/secrets when unset.
   */
  threeDsAuthenticationValueKeys: { sandbox?: string; production?: string };
  /**
   * AUTHORIZATION_DECISIONING_SECRETS_KEY: 32 bytes (base64) sealing the distributors' decisioning secrets at
   * rest; generated under DATA_DIR/secrets when unset.
   */
  decisioningSecretsKey?: string;
  /**
   * AUTHORIZATION_HOLD_DECISION_TIMEOUT_MS: how long after a payment's hold was placed its decision must be
   * recorded (the network's 0110 timeout, with room); past it the unrecorded-hold sweep releases the hold and
   * abandons the authorization.
   */
  unrecordedHoldAfterMs: number;
}

/** Where and how often cleared card payments leave custody (docs/API.md, "Settlement of card payments"). */
export interface SettlementConfig {
  /**
   * SETTLEMENT_ADDRESS_<ENV>: the settlement address (checksummed EVM address) of every program of the
   * environment until programs carry their own; unset: the sandbox on the simulated chain uses
   * `SIMULATED_SETTLEMENT_ADDRESS`, otherwise card payments wait for an address.
   */
  addresses: { sandbox?: string; production?: string };
  /** SETTLEMENT_INTERVAL_MS (default 3,600,000: hourly): between scheduled batches; 0: on demand only. */
  intervalMs: number;
}

/** The sandbox card network simulator's settings (docs/CONFIGURATION.md, `SIMULATOR_*`). */
export interface SimulatorConfig {
  /** SIMULATOR_ISO_PORT: where the issuer connects (0: any free port, the embedded default; app 8583). */
  isoPort: number;
  /** SIMULATOR_ISO_HOST: loopback by default (the app: 0.0.0.0). */
  isoHost: string;
  /** SIMULATOR_STAND_IN_TIMEOUT_MS: how long the network waits for the issuer's 0110 (default 3,000). */
  standInTimeoutMs: number;
  /** SIMULATOR_STAND_IN_LIMIT_MINOR: the largest stand-in approval, minor units (default 10,000). */
  standInLimitMinor: number;
  /** SIMULATOR_ACQUIRER_ID: DE-032 of the sandbox acquirer (default 400001). */
  acquirerId: string;
}

/** One environment's card issuing (`<NAME>_<SANDBOX|PRODUCTION>` variables, docs/CONFIGURATION.md). */
export interface CardIssuingConfig {
  /**
   * CARD_BIN_<ENV>: the BIN card numbers are drawn in. Unset: the sandbox uses the test BIN; production
   * issues no card (503 service_unavailable) until it is set.
   */
  bin?: string;
  /** CARD_LIFETIME_MONTHS_<ENV> (default 36): a card expires at the end of the month this far on. */
  lifetimeMonths: number;
  /** The vault's keys; each one unset is generated on first start under DATA_DIR/secrets (0600). */
  vaultKeys: {
    /** CARD_VAULT_KEKS_<ENV>: the KEK ring, `{"active": "<id>", "keys": {"<id>": "<32 bytes base64>"}}`. */
    keks?: string;
    /** CARD_VAULT_INDEX_KEY_<ENV>: the PAN index HMAC key, 32 bytes base64. */
    indexKey?: string;
    /** CARD_VAULT_CVK_<ENV>: the CVV2 key pair A|B, 32 hex digits. */
    cvk?: string;
    /** CARD_VAULT_PVK_<ENV>: the PIN verification key pair A|B, 32 hex digits. */
    pvk?: string;
  };
}

/** One environment's EVM chain: `<NAME>_<SANDBOX|PRODUCTION>` variables (docs/CONFIGURATION.md, "Wallets: chains and settlement"). */
export interface EvmChainConfig {
  /** CHAIN_RPC_URL_<ENV>: HTTP JSON-RPC endpoint; setting it turns the chain on for that environment. */
  rpcUrl: string;
  /** CHAIN_ID_<ENV>: the chain id the node must report. */
  chainId: number;
  /** USDC_CONTRACT_ADDRESS_<ENV>: the funding token. */
  usdcContractAddress: string;
  /** CHAIN_CONFIRMATIONS_<ENV> (default 12): confirmations before a deposit is credited. */
  confirmations: number;
  /** CHAIN_POLL_INTERVAL_MS_<ENV> (default 4000). */
  pollIntervalMs: number;
  /** CHAIN_MAX_BLOCK_RANGE_<ENV> (default 2000): widest eth_getLogs range. */
  maxBlockRange: number;
  /** CHAIN_START_BLOCK_<ENV>: first block scanned on the very first start (default: the current head). */
  startBlock?: number;
  /** HOT_WALLET_PRIVATE_KEY_<ENV>: pays withdrawals; without it withdrawals are not paid on this chain. */
  hotWalletPrivateKey?: string;
}

/** Webhook delivery settings (docs/CONFIGURATION.md). */
export interface WebhookConfig {
  /** WEBHOOK_ALLOW_PRIVATE_URLS=true: loopback and private urls accepted (local development and tests only). */
  allowPrivateUrls: boolean;
  /** WEBHOOK_SIGNING_KEY_SANDBOX / _PRODUCTION: Ed25519 private keys (base64 PKCS#8); generated if absent. */
  signingKeys: { sandbox?: string; production?: string };
  /** WEBHOOK_SECRETS_KEY: 32 bytes (base64) sealing subscription secrets at rest; generated if absent. */
  secretsKey?: string;
  /**
   * WEBHOOK_BREAKER_RESET_TIMEOUT_MS: how long a failing endpoint's open circuit stays open (real time) before
   * one delivery is let through to probe it.
   */
  breakerResetTimeoutMs: number;
}

// ---------------------------------------------------------------------------------------------------
// Reading and validating the environment: one zod schema, so a wrong value stops the start with a message
// naming the variable, instead of a default silently taking its place or a crash far from the cause.
// ---------------------------------------------------------------------------------------------------

/** A configuration the platform refuses to start with; the message names every wrong variable. */
export class ConfigError extends Error {
  constructor(readonly problems: string[]) {
    super(`Invalid configuration:\n${problems.map((problem) => `  ${problem}`).join('\n')}`);
    this.name = 'ConfigError';
  }
}

export const LOG_LEVELS = ['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'] as const;

const integer = (min: number, max = Number.MAX_SAFE_INTEGER) =>
  z
    .string()
    .regex(/^\d+$/, { error: `must be a whole number from ${min} to ${max}` })
    .transform(Number)
    .pipe(
      z
        .number()
        .min(min, { error: `must be at least ${min}` })
        .max(max, { error: `must be at most ${max}` }),
    );
const flag = z
  .enum(['true', 'false'], { error: 'must be true or false' })
  .transform((value) => value === 'true');
const text = z.string();
const httpUrl = z.url({ protocol: /^https?$/, error: 'must be an http(s) URL' });
/** `host:port` (an IPv6 host in brackets), port 1 to 65535. */
const HOST_PORT = /^(\[[^\]]+\]|[^:\s[\]]+):([1-9]\d{0,4})$/;
const hostPort = z
  .string()
  .refine((value) => HOST_PORT.test(value) && Number(HOST_PORT.exec(value)?.[2]) <= 65_535, {
    error: 'must be host:port, port 1 to 65535',
  })
  .transform((value) => {
    const at = value.lastIndexOf(':');
    return { host: value.slice(0, at).replace(/^\[|\]$/g, ''), port: Number(value.slice(at + 1)) };
  });

/** `host:port` (IPv6 in brackets) as CARD_NETWORK_ISO_ADDRESS reads it. */
export const parseHostPort = (value: string): { host: string; port: number } => hostPort.parse(value);

const chainVariables = (suffix: 'SANDBOX' | 'PRODUCTION') => ({
  [`CHAIN_RPC_URL_${suffix}`]: httpUrl.optional(),
  [`CHAIN_ID_${suffix}`]: integer(1).optional(),
  [`USDC_CONTRACT_ADDRESS_${suffix}`]: z
    .string()
    .regex(/^0x[0-9a-fA-F]{40}$/, { error: 'must be a 0x-prefixed 20-byte address' })
    .optional(),
  [`CHAIN_CONFIRMATIONS_${suffix}`]: integer(1).default(12),
  [`CHAIN_POLL_INTERVAL_MS_${suffix}`]: integer(10).default(4_000),
  [`CHAIN_MAX_BLOCK_RANGE_${suffix}`]: integer(1).default(2_000),
  [`CHAIN_START_BLOCK_${suffix}`]: integer(0).optional(),
  [`HOT_WALLET_PRIVATE_KEY_${suffix}`]: z
    .string()
    .regex(/^0x[0-9a-fA-F]{64}$/, { error: 'must be a 0x-prefixed 32-byte hex key' })
    .optional(),
});

/** An EVM address: 0x and 40 hex digits, mixed case only with a valid EIP-55 checksum; read checksummed. */
const evmAddress = z
  .string()
  .refine((value) => Address.validate(value, { strict: true }), {
    error: 'must be an EVM address (0x and 40 hex digits; mixed case only with a valid EIP-55 checksum)',
  })
  .transform((value) => Address.checksum(value));

const base64Key = z
  .string()
  .refine((value) => /^[A-Za-z0-9+/]+={0,2}$/.test(value) && Buffer.from(value, 'base64').length === 32, {
    error: 'must be 32 bytes, base64',
  });
const hexKeyPair = z.string().regex(/^[0-9a-fA-F]{32}$/, { error: 'must be 32 hex digits (a key pair A|B)' });
const keyRing = z.string().refine(
  (value) => {
    try {
      const ring = JSON.parse(value) as { active?: unknown; keys?: Record<string, unknown> };
      const keys = Object.values(ring.keys ?? {});
      return (
        typeof ring.active === 'string' &&
        typeof ring.keys?.[ring.active] === 'string' &&
        keys.every((key) => typeof key === 'string' && base64Key.safeParse(key).success)
      );
    } catch {
      return false;
    }
  },
  { error: 'must be {"active": "<id>", "keys": {"<id>": "<32 bytes base64>", ...}}' },
);

const cardVariables = (suffix: 'SANDBOX' | 'PRODUCTION') => ({
  [`CARD_BIN_${suffix}`]: z
    .string()
    .regex(/^\d{6,8}$/, { error: 'must be a BIN of 6 to 8 digits' })
    .optional(),
  [`CARD_LIFETIME_MONTHS_${suffix}`]: integer(1, 120).default(36),
  [`CARD_VAULT_KEKS_${suffix}`]: keyRing.optional(),
  [`CARD_VAULT_INDEX_KEY_${suffix}`]: base64Key.optional(),
  [`CARD_VAULT_CVK_${suffix}`]: hexKeyPair.optional(),
  [`CARD_VAULT_PVK_${suffix}`]: hexKeyPair.optional(),
});

/** The card network simulator's variables, and the ZPK it shares with the issuer. */
const SIMULATOR_ENV = z.object({
  SIMULATOR_ISO_PORT: integer(0, 65_535).optional(),
  SIMULATOR_ISO_HOST: text.optional(),
  SIMULATOR_STAND_IN_TIMEOUT_MS: integer(1, 60_000).default(3_000),
  SIMULATOR_STAND_IN_LIMIT_MINOR: integer(0, 999_999_999_999).default(10_000),
  SIMULATOR_ACQUIRER_ID: z
    .string()
    .regex(/^\d{1,11}$/, { error: 'must be 1 to 11 digits' })
    .default('400001'),
  CARD_NETWORK_ZPK: z
    .string()
    .regex(ZPK_HEX, { error: 'must be 32 or 48 hex digits (a double or triple length TDES key)' })
    .default(SANDBOX_ZPK),
});

const PLATFORM_ENV = z.object({
  PORT: integer(0, 65_535).default(3000),
  DASHBOARD_PORT: integer(0, 65_535).default(3001),
  DASHBOARD_PUBLIC_URL: httpUrl.optional(),
  HOST: text.default('0.0.0.0'),
  DATA_DIR: text.default('./data'),
  SQLITE_WAL_LIMIT_MB: integer(16).default(1024),
  LOG_LEVEL: z.enum(LOG_LEVELS, { error: `must be one of ${LOG_LEVELS.join(', ')}` }).default('info'),
  BOOTSTRAP_SANDBOX_API_KEY: z
    .string()
    .startsWith('sk_sandbox_', { error: 'must start with sk_sandbox_' })
    .optional(),
  BOOTSTRAP_PRODUCTION_API_KEY: z
    .string()
    .startsWith('sk_live_', { error: 'must start with sk_live_' })
    .optional(),
  RATE_LIMIT_PER_SECOND: integer(1).default(100),
  RATE_LIMIT_BURST: integer(1).optional(),
  HTTP_HEADERS_TIMEOUT_MS: integer(100).default(10_000),
  HTTP_REQUEST_TIMEOUT_MS: integer(100).default(30_000),
  PUBLIC_BASE_URL: httpUrl.optional(),
  KYC_LINK_SECRET: text.optional(),
  PERSONAL_DATA_MASTER_KEY: text.optional(),
  WALLET_HD_SEED_SANDBOX: text.optional(),
  WALLET_HD_SEED_PRODUCTION: text.optional(),
  ...chainVariables('SANDBOX'),
  ...chainVariables('PRODUCTION'),
  WEBHOOK_ALLOW_PRIVATE_URLS: flag.default(false),
  WEBHOOK_SIGNING_KEY_SANDBOX: text.optional(),
  WEBHOOK_SIGNING_KEY_PRODUCTION: text.optional(),
  WEBHOOK_SECRETS_KEY: text.optional(),
  WEBHOOK_BREAKER_RESET_TIMEOUT_MS: integer(1000).default(30_000),
  ...cardVariables('SANDBOX'),
  ...cardVariables('PRODUCTION'),
  CARD_NETWORK_ISO_ADDRESS: hostPort.optional(),
  ...SIMULATOR_ENV.shape,
  SETTLEMENT_ADDRESS_SANDBOX: evmAddress.optional(),
  SETTLEMENT_ADDRESS_PRODUCTION: evmAddress.optional(),
  SETTLEMENT_INTERVAL_MS: integer(0).default(3_600_000),
  THREE_DS_BASE_URL: httpUrl.optional(),
  THREE_DS_AUTHENTICATION_VALUE_KEY_SANDBOX: text.optional(),
  THREE_DS_AUTHENTICATION_VALUE_KEY_PRODUCTION: text.optional(),
  AUTHORIZATION_DECISIONING_SECRETS_KEY: text.optional(),
  AUTHORIZATION_HOLD_DECISION_TIMEOUT_MS: integer(1000).default(60_000),
});

/** Every variable `readPlatformConfig` reads (the deployment files' specs check theirs against it). */
export const PLATFORM_VARIABLES: readonly string[] = Object.keys(PLATFORM_ENV.shape);

const SECRET_VARIABLE = /KEY|KEK|CVK|PVK|ZPK|SECRET|SEED/;

/**
 * Parses the variables a schema knows. An empty variable counts as unset (how compose files and shells
 * usually leave one out); variables the schema does not know are ignored (the process environment holds
 * many).
 */
export function parseEnvironment<S extends z.ZodObject>(schema: S, env: NodeJS.ProcessEnv): z.infer<S> {
  const known = Object.fromEntries(
    Object.keys(schema.shape)
      .filter((name) => env[name] !== undefined && env[name] !== '')
      .map((name) => [name, env[name]]),
  );
  const parsed = schema.safeParse(known);
  if (parsed.success) return parsed.data;
  throw new ConfigError(
    parsed.error.issues.map((issue) => {
      const name = String(issue.path[0]);
      // A wrong secret is not echoed: start-up errors end up in logs.
      const got = SECRET_VARIABLE.test(name) ? 'value not shown' : `got "${known[name]}"`;
      return `${name}: ${issue.message} (${got})`;
    }),
  );
}

/** LOG_LEVEL of the apps that read nothing else of the platform's configuration (relay, context services). */
export function readLogLevel(env: NodeJS.ProcessEnv = process.env): (typeof LOG_LEVELS)[number] {
  return parseEnvironment(PLATFORM_ENV.pick({ LOG_LEVEL: true }), env).LOG_LEVEL;
}

const walLimitBytes = (megabytes: number) => megabytes * 1024 * 1024;

/** SQLITE_WAL_LIMIT_MB in bytes, for the processes of the split topology that open the SQLite files. */
export function readWalLimitBytes(env: NodeJS.ProcessEnv = process.env): number {
  return walLimitBytes(
    parseEnvironment(PLATFORM_ENV.pick({ SQLITE_WAL_LIMIT_MB: true }), env).SQLITE_WAL_LIMIT_MB,
  );
}

type PlatformEnv = z.infer<typeof PLATFORM_ENV>;

function simulatorConfig(
  env: z.infer<typeof SIMULATOR_ENV>,
  defaults: { isoPort: number; isoHost: string },
): SimulatorConfig {
  return {
    isoPort: env.SIMULATOR_ISO_PORT ?? defaults.isoPort,
    isoHost: env.SIMULATOR_ISO_HOST ?? defaults.isoHost,
    standInTimeoutMs: env.SIMULATOR_STAND_IN_TIMEOUT_MS,
    standInLimitMinor: env.SIMULATOR_STAND_IN_LIMIT_MINOR,
    acquirerId: env.SIMULATOR_ACQUIRER_ID,
  };
}

/**
 * The standalone simulator app's settings (its own port defaults: 8583 on every interface) and the ZPK; a
 * wrong value throws a ConfigError naming the variable.
 */
export function readSimulatorConfig(
  source: NodeJS.ProcessEnv,
  defaults: { isoPort: number; isoHost: string },
): SimulatorConfig & { zpkHex: string } {
  const env = parseEnvironment(SIMULATOR_ENV, source);
  return { ...simulatorConfig(env, defaults), zpkHex: env.CARD_NETWORK_ZPK };
}

function evmChainConfig(env: PlatformEnv, suffix: 'SANDBOX' | 'PRODUCTION'): EvmChainConfig | undefined {
  const value = <T>(name: string) => (env as Record<string, unknown>)[`${name}_${suffix}`] as T;
  const rpcUrl = value<string | undefined>('CHAIN_RPC_URL');
  if (!rpcUrl) return undefined;
  const missing = ['CHAIN_ID', 'USDC_CONTRACT_ADDRESS']
    .filter((name) => value(name) === undefined)
    .map((name) => `${name}_${suffix}: must be set when CHAIN_RPC_URL_${suffix} is`);
  if (missing.length > 0) throw new ConfigError(missing);
  return {
    rpcUrl,
    chainId: value('CHAIN_ID'),
    usdcContractAddress: value('USDC_CONTRACT_ADDRESS'),
    confirmations: value('CHAIN_CONFIRMATIONS'),
    pollIntervalMs: value('CHAIN_POLL_INTERVAL_MS'),
    maxBlockRange: value('CHAIN_MAX_BLOCK_RANGE'),
    startBlock: value('CHAIN_START_BLOCK'),
    hotWalletPrivateKey: value('HOT_WALLET_PRIVATE_KEY'),
  };
}

function cardIssuingConfig(env: PlatformEnv, suffix: 'SANDBOX' | 'PRODUCTION'): CardIssuingConfig {
  const value = <T>(name: string) => (env as Record<string, unknown>)[`${name}_${suffix}`] as T;
  return {
    bin: value('CARD_BIN'),
    lifetimeMonths: value('CARD_LIFETIME_MONTHS'),
    vaultKeys: {
      keks: value('CARD_VAULT_KEKS'),
      indexKey: value('CARD_VAULT_INDEX_KEY'),
      cvk: value('CARD_VAULT_CVK'),
      pvk: value('CARD_VAULT_PVK'),
    },
  };
}

/** The platform's settings from the environment; a wrong value throws a ConfigError naming the variable. */
export function readPlatformConfig(source: NodeJS.ProcessEnv = process.env): PlatformConfig {
  const env = parseEnvironment(PLATFORM_ENV, source);
  return {
    port: env.PORT,
    dashboardPort: env.DASHBOARD_PORT,
    dashboardPublicUrl: env.DASHBOARD_PUBLIC_URL,
    host: env.HOST,
    dataDir: resolve(env.DATA_DIR),
    walLimitBytes: walLimitBytes(env.SQLITE_WAL_LIMIT_MB),
    logLevel: env.LOG_LEVEL,
    bootstrapSandboxApiKey: env.BOOTSTRAP_SANDBOX_API_KEY,
    bootstrapProductionApiKey: env.BOOTSTRAP_PRODUCTION_API_KEY,
    rateLimit: {
      ratePerSecond: env.RATE_LIMIT_PER_SECOND,
      burst: env.RATE_LIMIT_BURST ?? env.RATE_LIMIT_PER_SECOND * 2,
    },
    httpTimeouts: { headersMs: env.HTTP_HEADERS_TIMEOUT_MS, requestMs: env.HTTP_REQUEST_TIMEOUT_MS },
    publicBaseUrl: env.PUBLIC_BASE_URL,
    kycLinkSecret: env.KYC_LINK_SECRET,
    personalDataMasterKey: env.PERSONAL_DATA_MASTER_KEY,
    walletHdSeeds: { sandbox: env.WALLET_HD_SEED_SANDBOX, production: env.WALLET_HD_SEED_PRODUCTION },
    chains: { sandbox: evmChainConfig(env, 'SANDBOX'), production: evmChainConfig(env, 'PRODUCTION') },
    webhooks: {
      allowPrivateUrls: env.WEBHOOK_ALLOW_PRIVATE_URLS,
      signingKeys: {
        sandbox: env.WEBHOOK_SIGNING_KEY_SANDBOX,
        production: env.WEBHOOK_SIGNING_KEY_PRODUCTION,
      },
      secretsKey: env.WEBHOOK_SECRETS_KEY,
      breakerResetTimeoutMs: env.WEBHOOK_BREAKER_RESET_TIMEOUT_MS,
    },
    cards: { sandbox: cardIssuingConfig(env, 'SANDBOX'), production: cardIssuingConfig(env, 'PRODUCTION') },
    cardNetwork: env.CARD_NETWORK_ISO_ADDRESS,
    cardNetworkZpk: env.CARD_NETWORK_ZPK,
    simulator: simulatorConfig(env, { isoPort: 0, isoHost: '127.0.0.1' }),
    settlement: {
      addresses: { sandbox: env.SETTLEMENT_ADDRESS_SANDBOX, production: env.SETTLEMENT_ADDRESS_PRODUCTION },
      intervalMs: env.SETTLEMENT_INTERVAL_MS,
    },
    threeDsBaseUrl: env.THREE_DS_BASE_URL,
    threeDsAuthenticationValueKeys: {
      sandbox: env.THREE_DS_AUTHENTICATION_VALUE_KEY_SANDBOX,
      production: env.THREE_DS_AUTHENTICATION_VALUE_KEY_PRODUCTION,
    },
    decisioningSecretsKey: env.AUTHORIZATION_DECISIONING_SECRETS_KEY,
    unrecordedHoldAfterMs: env.AUTHORIZATION_HOLD_DECISION_TIMEOUT_MS,
  };
}
