import { chmodSync, existsSync, mkdirSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

/**
 * A secret the embedded runtime generates on its first start and keeps under DATA_DIR/secrets (mode 0600),
 * unless the deployment supplies it: `fromEnv` (when set) always wins, so the distributed runtime takes its
 * secrets from the orchestrator and never writes them to disk. Written atomically (temp file + rename), so
 * a crash during the first start never leaves half a key behind.
 */
export function loadOrCreateSecret(options: {
  dataDir: string;
  /** File name under DATA_DIR/secrets, e.g. `sandbox-wallet-seed`. */
  name: string;
  fromEnv?: string;
  generate: () => string;
}): string {
  if (options.fromEnv) return options.fromEnv.trim();
  const directory = join(options.dataDir, 'secrets');
  const path = join(directory, options.name);
  if (existsSync(path)) return readFileSync(path, 'utf8').trim();
  mkdirSync(directory, { recursive: true, mode: 0o700 });
  const value = options.generate();
  const temporary = `${path}.${process.pid}.tmp`;
  writeFileSync(temporary, `${value}\n`, { mode: 0o600 });
  chmodSync(temporary, 0o600);
  renameSync(temporary, path);
  return value;
}
