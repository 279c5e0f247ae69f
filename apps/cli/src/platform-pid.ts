import { readFileSync } from 'node:fs';
import { join } from 'node:path';

/** Written by the platform (apps/platform/src/main.ts) in its data directory while it runs. */
export const PLATFORM_PID_FILE = 'platform.pid';

/**
 * The pid of a platform running on `dataDir`, or null. A pid file left behind by a platform that did not
 * shut down cleanly (kill -9, crash) names a dead process and is ignored.
 */
export function runningPlatformPid(dataDir: string): number | null {
  let content: string;
  try {
    content = readFileSync(join(dataDir, PLATFORM_PID_FILE), 'utf8');
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return null;
    throw error;
  }
  const pid = Number(content.trim());
  if (!Number.isInteger(pid) || pid <= 0) return null;
  try {
    process.kill(pid, 0);
    return pid;
  } catch (error) {
    // EPERM: the process exists but belongs to another user, which still means a platform may be running.
    return (error as NodeJS.ErrnoException).code === 'EPERM' ? pid : null;
  }
}
