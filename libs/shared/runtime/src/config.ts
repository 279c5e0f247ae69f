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
  /** Address users reach the platform at (hosted KYC links); defaults to the URL it listens on. */
  publicBaseUrl?: string;
  /** Key of hosted KYC link signatures; generated under DATA_DIR/secrets on first start when unset. */
  kycLinkSecret?: string;
  /** Wallets: deposit-address HD seeds (BIP-39 mnemonics), generated on first start when not given. */
  walletHdSeeds?: { sandbox?: string; production?: string };
  /** Wallets: the EVM chain of deposits and payouts; without an RPC URL the simulated chain is used. */
  chain?: {
    name?: string;
    rpcUrl?: string;
    usdcContractAddress?: string;
    confirmations?: number;
    hotWalletPrivateKey?: string;
  };
  webhooks: WebhookConfig;
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
    publicBaseUrl: env.PUBLIC_BASE_URL || undefined,
    kycLinkSecret: env.KYC_LINK_SECRET || undefined,
    walletHdSeeds: {
      sandbox: env.WALLET_HD_SEED_SANDBOX || undefined,
      production: env.WALLET_HD_SEED_PRODUCTION || undefined,
    },
    chain: {
      name: env.CHAIN_NAME || undefined,
      rpcUrl: env.CHAIN_RPC_URL || undefined,
      usdcContractAddress: env.USDC_CONTRACT_ADDRESS || undefined,
      confirmations: positiveInteger(env, 'CHAIN_CONFIRMATIONS', 12),
      hotWalletPrivateKey: env.HOT_WALLET_PRIVATE_KEY || undefined,
    },
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
