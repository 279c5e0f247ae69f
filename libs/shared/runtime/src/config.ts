import { resolve } from 'node:path';

/** Settings read from the environment at start-up (README, "Configuration"). */
export interface PlatformConfig {
  port: number;
  host: string;
  dataDir: string;
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
}

/** One environment's EVM chain: `<NAME>_<SANDBOX|PRODUCTION>` variables (README, "Wallets and USDC funding"). */
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

/** Webhook delivery settings (README, "Webhooks"). */
export interface WebhookConfig {
  /** WEBHOOK_ALLOW_PRIVATE_URLS=true: loopback and private urls accepted (local development and tests only). */
  allowPrivateUrls: boolean;
  /** WEBHOOK_SIGNING_KEY_SANDBOX / _PRODUCTION: Ed25519 private keys (base64 PKCS#8); generated if absent. */
  signingKeys: { sandbox?: string; production?: string };
  /** WEBHOOK_SECRETS_KEY: 32 bytes (base64) sealing subscription secrets at rest; generated if absent. */
  secretsKey?: string;
}

function evmChainConfig(
  env: NodeJS.ProcessEnv,
  suffix: 'SANDBOX' | 'PRODUCTION',
): EvmChainConfig | undefined {
  const rpcUrl = env[`CHAIN_RPC_URL_${suffix}`];
  if (!rpcUrl) return undefined;
  const required = (name: string): string => {
    const value = env[`${name}_${suffix}`];
    if (!value) throw new Error(`${name}_${suffix} must be set when CHAIN_RPC_URL_${suffix} is`);
    return value;
  };
  const chainId = Number(required('CHAIN_ID'));
  if (!Number.isInteger(chainId) || chainId <= 0)
    throw new Error(`CHAIN_ID_${suffix} must be a positive integer`);
  const startBlock = env[`CHAIN_START_BLOCK_${suffix}`];
  return {
    rpcUrl,
    chainId,
    usdcContractAddress: required('USDC_CONTRACT_ADDRESS'),
    confirmations: Math.max(1, positiveInteger(env, `CHAIN_CONFIRMATIONS_${suffix}`, 12)),
    pollIntervalMs: Math.max(10, positiveInteger(env, `CHAIN_POLL_INTERVAL_MS_${suffix}`, 4_000)),
    maxBlockRange: Math.max(1, positiveInteger(env, `CHAIN_MAX_BLOCK_RANGE_${suffix}`, 2_000)),
    startBlock: startBlock ? positiveInteger(env, `CHAIN_START_BLOCK_${suffix}`, 0) : undefined,
    hotWalletPrivateKey: env[`HOT_WALLET_PRIVATE_KEY_${suffix}`] || undefined,
  };
}

function positiveInteger(env: NodeJS.ProcessEnv, name: string, fallback: number): number {
  const raw = env[name];
  if (raw === undefined || raw === '') return fallback;
  const value = Number(raw);
  if (!Number.isInteger(value) || value < 0)
    throw new Error(`${name} must be a non-negative integer, got "${raw}"`);
  return value;
}

export function readPlatformConfig(env: NodeJS.ProcessEnv = process.env): PlatformConfig {
  const ratePerSecond = positiveInteger(env, 'RATE_LIMIT_PER_SECOND', 100);
  return {
    port: positiveInteger(env, 'PORT', 3000),
    host: env.HOST || '0.0.0.0',
    dataDir: resolve(env.DATA_DIR || './data'),
    logLevel: env.LOG_LEVEL || 'info',
    bootstrapSandboxApiKey: env.BOOTSTRAP_SANDBOX_API_KEY || undefined,
    bootstrapProductionApiKey: env.BOOTSTRAP_PRODUCTION_API_KEY || undefined,
    rateLimit: { ratePerSecond, burst: positiveInteger(env, 'RATE_LIMIT_BURST', ratePerSecond * 2) },
    httpTimeouts: {
      headersMs: positiveInteger(env, 'HTTP_HEADERS_TIMEOUT_MS', 10_000),
      requestMs: positiveInteger(env, 'HTTP_REQUEST_TIMEOUT_MS', 30_000),
    },
    publicBaseUrl: env.PUBLIC_BASE_URL || undefined,
    kycLinkSecret: env.KYC_LINK_SECRET || undefined,
    personalDataMasterKey: env.PERSONAL_DATA_MASTER_KEY || undefined,
    walletHdSeeds: {
      sandbox: env.WALLET_HD_SEED_SANDBOX || undefined,
      production: env.WALLET_HD_SEED_PRODUCTION || undefined,
    },
    chains: { sandbox: evmChainConfig(env, 'SANDBOX'), production: evmChainConfig(env, 'PRODUCTION') },
    webhooks: {
      allowPrivateUrls: env.WEBHOOK_ALLOW_PRIVATE_URLS === 'true',
      signingKeys: {
        sandbox: env.WEBHOOK_SIGNING_KEY_SANDBOX || undefined,
        production: env.WEBHOOK_SIGNING_KEY_PRODUCTION || undefined,
      },
      secretsKey: env.WEBHOOK_SECRETS_KEY || undefined,
    },
  };
}
