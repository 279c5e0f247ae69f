import { createLogger, readPlatformConfig, type PlatformConfig } from '@cip/shared/runtime';
import { startPlatform } from '../../apps/platform/src/start-platform';

/**
 * The embedded platform in the bench's own process, as the benches that drive it from inside start it: on
 * `dataDir`, an ephemeral loopback port, `apiKey` bootstrapped, no rate limit, webhooks to private
 * (loopback) receivers allowed; `config` overrides the rest (a chain, for example).
 */
export function startInProcessPlatform(
  dataDir: string,
  apiKey: string,
  config: Partial<PlatformConfig> = {},
  logLevel = 'warn',
) {
  const defaults = readPlatformConfig({});
  return startPlatform(
    {
      ...defaults,
      port: 0,
      dashboardPort: 0,
      host: '127.0.0.1',
      dataDir,
      bootstrapSandboxApiKey: apiKey,
      rateLimit: { ratePerSecond: 1_000_000, burst: 1_000_000 },
      webhooks: { ...defaults.webhooks, allowPrivateUrls: true },
      ...config,
    },
    { logger: createLogger(logLevel as Parameters<typeof createLogger>[0]) },
  );
}
