import { ConfigError } from './config';

/** A TCP port from the environment, or the fallback when unset. */
export function readPort(name: string, fallback: number, env: NodeJS.ProcessEnv = process.env): number {
  const raw = env[name];
  if (!raw) return fallback;
  const value = Number(raw);
  if (!Number.isInteger(value) || value < 0 || value > 65_535)
    throw new Error(`${name} must be a port, got "${raw}"`);
  return value;
}

/**
 * Runs an app's main; a start-up failure is printed (a wrong configuration by its message, anything else with
 * its stack) and exits non-zero.
 */
export function runMain(appName: string, main: () => Promise<void>): void {
  Promise.resolve()
    .then(main)
    .catch((error) => {
      const reason =
        error instanceof ConfigError ? error.message : error instanceof Error ? error.stack : String(error);
      process.stderr.write(`${appName} failed to start: ${reason}\n`);
      process.exit(1);
    });
}
