import 'reflect-metadata';
import { firstSandboxKeyLines } from '@cip/distributors/service';
import { ConfigError, readPlatformConfig } from '@cip/shared/runtime';
import { mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { startPlatform } from './start-platform';

async function main(): Promise<void> {
  const startedAt = performance.now();
  const config = readPlatformConfig();
  // Tells the CLI that a platform runs on this data directory: projection rebuilds refuse to run beside
  // it. Written before the consumers start; a file left by a crash names a dead pid, which the CLI ignores.
  const pidFile = join(config.dataDir, 'platform.pid');
  mkdirSync(config.dataDir, { recursive: true, mode: 0o700 });
  writeFileSync(pidFile, `${process.pid}\n`);
  const platform = await startPlatform(config);
  const lines = [
    `Card-issuing platform (embedded runtime) listening on ${platform.url}`,
    `  data directory   ${config.dataDir}`,
    `  API docs         ${platform.url}/v1/docs`,
    `  dashboard        ${config.dashboardPublicUrl ?? platform.dashboardUrl} (operator API docs at /operator/v1/docs)`,
    `  default distributor ${platform.distributorId}`,
    `  card network     ${platform.cardNetworkAddress} (ISO 8583; the issuer links to it${config.cardNetwork ? '' : ', the sandbox simulator in this process'})`,
  ];
  if (platform.firstSandboxKey) {
    lines.push(...firstSandboxKeyLines(platform.firstSandboxKey));
  }
  lines.push(`  started in ${Math.round(performance.now() - startedAt)} ms`);
  // The banner is for the person at the terminal: stderr, so stdout stays JSON log lines for collectors.
  process.stderr.write(`${lines.join('\n')}\n`);

  let stopping = false;
  const stop = async (signal: string) => {
    if (stopping) return;
    stopping = true;
    platform.logger.info({ signal }, 'shutting down');
    await platform.close();
    rmSync(pidFile, { force: true });
    process.exit(0);
  };
  process.on('SIGTERM', () => void stop('SIGTERM'));
  process.on('SIGINT', () => void stop('SIGINT'));
}

main().catch((error) => {
  const reason =
    error instanceof ConfigError ? error.message : error instanceof Error ? error.stack : String(error);
  process.stderr.write(`Platform failed to start: ${reason}\n`);
  process.exit(1);
});
