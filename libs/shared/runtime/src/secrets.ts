import {
  chmodSync,
  closeSync,
  existsSync,
  fsyncSync,
  mkdirSync,
  openSync,
  readFileSync,
  renameSync,
  writeFileSync,
} from 'node:fs';
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
  const value = options.generate();
  writeSecret({ dataDir: options.dataDir, name: options.name, value });
  return value;
}

/**
 * Replaces (or creates) the secret `name` under DATA_DIR/secrets, 0600, atomically: a reader sees the old
 * value or the new one, never a mix (a key ring during a rotation). Durable once it returns (the file and
 * the directory entry are synced): a key a store starts using right after must survive a power cut too.
 */
export function writeSecret(options: { dataDir: string; name: string; value: string }): void {
  const directory = join(options.dataDir, 'secrets');
  const path = join(directory, options.name);
  mkdirSync(directory, { recursive: true, mode: 0o700 });
  const temporary = `${path}.${process.pid}.tmp`;
  writeFileSync(temporary, `${options.value}\n`, { mode: 0o600 });
  chmodSync(temporary, 0o600);
  syncPath(temporary);
  renameSync(temporary, path);
  syncPath(directory);
}

function syncPath(path: string): void {
  const fd = openSync(path, 'r');
  try {
    fsyncSync(fd);
  } finally {
    closeSync(fd);
  }
}
