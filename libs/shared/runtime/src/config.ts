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
  if (!Number.isInteger(value) || value < 0) throw new Error(`${name} must be a non-negative integer, got "${raw}"`);
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
