import {
  chmodSync,
  closeSync,
  existsSync,
  fsyncSync,
  linkSync,
  mkdirSync,
  openSync,
  readFileSync,
  renameSync,
  unlinkSync,
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
  // Several processes may start on one DATA_DIR at once (the split platform): the first to create the file
  // wins, and the others read its value rather than keep one of their own.
  return createSecretOnce(directory, path, value) ? value : readFileSync(path, 'utf8').trim();
}

/**
 * Creates the secret file unless it exists: written and synced under a temporary name, then hard-linked to
 * its name (atomic, and refused when the name exists). False when another process created it first.
 */
function createSecretOnce(directory: string, path: string, value: string): boolean {
  mkdirSync(directory, { recursive: true, mode: 0o700 });
  const temporary = `${path}.${process.pid}.tmp`;
  writeFileSync(temporary, `${value}\n`, { mode: 0o600 });
  chmodSync(temporary, 0o600);
  syncPath(temporary);
  try {
    linkSync(temporary, path);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'EEXIST') return false;
    throw error;
  } finally {
    unlinkSync(temporary);
  }
  syncPath(directory);
  return true;
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
