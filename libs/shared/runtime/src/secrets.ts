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
import { randomBytes } from 'node:crypto';
import { join } from 'node:path';

/**
 * A secret the embedded runtime generates on its first start and keeps under DATA_DIR/secrets (mode 0600),
 * unless the deployment supplies it: `fromEnv` (when set) always wins, so the distributed runtime takes its
 * secrets from the orchestrator and never writes them to disk. Written atomically, so a crash during the
 * first start never leaves half a key behind, and created only if absent: the services of the split
 * topology start at once on a fresh DATA_DIR, and each must end up with the same key, the first one written
 * (a second key overwriting the first would leave whatever was sealed with the first unreadable).
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
  const temporary = writeTemporary(directory, path, options.generate());
  try {
    // link() creates the name only if no one did meanwhile (rename would replace another process's key).
    linkSync(temporary, path);
    syncPath(directory);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
  } finally {
    unlinkSync(temporary);
  }
  // The key written first, whoever wrote it: complete and synced before its name existed.
  return readFileSync(path, 'utf8').trim();
}

/**
 * Replaces (or creates) the secret `name` under DATA_DIR/secrets, 0600, atomically: a reader sees the old
 * value or the new one, never a mix (a key ring during a rotation). Durable once it returns (the file and
 * the directory entry are synced): a key a store starts using right after must survive a power cut too.
 */
export function writeSecret(options: { dataDir: string; name: string; value: string }): void {
  const directory = join(options.dataDir, 'secrets');
  const path = join(directory, options.name);
  renameSync(writeTemporary(directory, path, options.value), path);
  syncPath(directory);
}

/** The value in a synced 0600 file beside `path`, of a name no other writer (process or thread) uses. */
function writeTemporary(directory: string, path: string, value: string): string {
  mkdirSync(directory, { recursive: true, mode: 0o700 });
  const temporary = `${path}.${process.pid}.${randomBytes(6).toString('hex')}.tmp`;
  writeFileSync(temporary, `${value}\n`, { mode: 0o600 });
  chmodSync(temporary, 0o600);
  syncPath(temporary);
  return temporary;
}

function syncPath(path: string): void {
  const fd = openSync(path, 'r');
  try {
    fsyncSync(fd);
  } finally {
    closeSync(fd);
  }
}
