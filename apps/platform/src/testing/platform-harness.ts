import { DistributorsService } from '@cip/distributors/service';
import { ProgramConfig } from '@cip/distributors/domain';
import {
  createLogger,
  Logger,
  ManualClock,
  PlatformConfig,
  readPlatformConfig,
  systemClock,
} from '@cip/shared/runtime';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import request from 'supertest';
import { RunningPlatform, startPlatform } from '../start-platform';
import { OpenApiResponses } from './openapi-responses';

export const SANDBOX_KEY = 'sk_sandbox_e2eTestKeyAAAAAAAAAAAAAAAAAAAAAAAAAA';
export const PRODUCTION_KEY = 'sk_live_e2eTestKeyBBBBBBBBBBBBBBBBBBBBBBBBBBBB';

export interface Harness {
  platform: RunningPlatform;
  dataDir: string;
  /** Every response is checked against the served OpenAPI document when awaited (`OpenApiResponses`). */
  http: ReturnType<typeof request>;
  distributors: DistributorsService;
  /** A second distributor with its own sandbox key and program. */
  newDistributor(program?: Partial<ProgramConfig>): Promise<{ distributorId: string; sandboxKey: string }>;
  /** Stops the platform; the data directory is removed unless `keepData` (to start again on it). */
  close(options?: { keepData?: boolean }): Promise<void>;
}

/**
 * The whole embedded platform on a free port and a fresh data directory, as a distributor meets it:
 * tests drive it over HTTP only (supertest), apart from operator actions done through the CLI's services.
 */
export async function startHarness(
  options: {
    rateLimit?: { ratePerSecond: number; burst: number };
    httpTimeouts?: PlatformConfig['httpTimeouts'];
    clock?: ManualClock;
    /** Webhook tests with a local receiver turn this on; SSRF tests keep it off (the default). */
    allowPrivateWebhookUrls?: boolean;
    webhookBreakerResetTimeoutMs?: number;
    /** Reopen an existing data directory (restart tests); a fresh one otherwise. */
    dataDir?: string;
    /** EVM chains of the wallets context (a local ganache chain in the funding tests). */
    chains?: PlatformConfig['chains'];
    /** PUBLIC_BASE_URL; links start with the listening URL without it. */
    publicBaseUrl?: string;
    /** Where the platform logs (silent without it): tests that check what reaches the logs. */
    logger?: Logger;
    /** The card network's ISO 8583 endpoint the sandbox issuer connects to (a test's IsoServer). */
    cardNetwork?: PlatformConfig['cardNetwork'];
    /** False: the platform's issuer does not link to its card network (a test's fake issuer answers). */
    linkIssuer?: boolean;
    /** Settlement addresses and schedule (default: the configuration's, on demand only in tests). */
    settlement?: PlatformConfig['settlement'];
  } = {},
): Promise<Harness> {
  const dataDir = options.dataDir ?? mkdtempSync(join(tmpdir(), 'cip-e2e-'));
  const config = readPlatformConfig({});
  const platform = await startPlatform(
    {
      ...config,
      webhooks: { ...config.webhooks, allowPrivateUrls: options.allowPrivateWebhookUrls ?? false },
      port: 0,
      host: '127.0.0.1',
      dataDir,
      bootstrapSandboxApiKey: SANDBOX_KEY,
      bootstrapProductionApiKey: PRODUCTION_KEY,
      rateLimit: options.rateLimit ?? { ratePerSecond: 100_000, burst: 100_000 },
      httpTimeouts: options.httpTimeouts ?? config.httpTimeouts,
      chains: options.chains ?? {},
      publicBaseUrl: options.publicBaseUrl,
      cardNetwork: options.cardNetwork,
      // Tests run settlement on demand (SettlementRunner.runNow); no batch is cut behind their back.
      settlement: options.settlement ?? { ...config.settlement, intervalMs: 0 },
    },
    {
      logger: options.logger ?? createLogger('silent'),
      clock: options.clock ?? systemClock,
      pollIntervalMs: 20,
      webhookBreakerResetTimeoutMs: options.webhookBreakerResetTimeoutMs,
      linkIssuer: options.linkIssuer,
    },
  );
  const distributors = platform.app.get(DistributorsService);
  const responses = await OpenApiResponses.of(platform.url);
  return {
    platform,
    dataDir,
    http: responses.agent(platform.url),
    distributors,
    async newDistributor(program = {}) {
      const distributor = await distributors.createDistributor({ name: 'Other distributor', program });
      const key = await distributors.issueKey(distributor.distributorId, 'sandbox');
      return { distributorId: distributor.distributorId, sandboxKey: key.apiKey };
    },
    async close({ keepData = false } = {}) {
      await platform.close();
      if (!keepData) rmSync(dataDir, { recursive: true, force: true });
    },
  };
}

let counter = 0;
/** A valid create-user body with a unique email. */
export function newUserBody(overrides: Record<string, unknown> = {}) {
  counter++;
  return {
    email: `user-${process.pid}-${Date.now()}-${counter}@example.com`,
    firstName: 'Ada',
    lastName: 'Lovelace',
    countryOfResidence: 'FR',
    ...overrides,
  };
}
