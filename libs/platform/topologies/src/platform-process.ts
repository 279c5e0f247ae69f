import { ChildProcess, spawn } from 'node:child_process';
import { basename, join } from 'node:path';

// Where the process-level tests take their ports from (kept here for the specs that import it from here).
export { freePort } from '@cip/shared/runtime';

/**
 * `dist/apps/<app>/src/main.js`, the built app as npm scripts run it (the e2e project's global setup builds
 * dist/ first), whether this file runs from the sources (jest) or built itself (the split launcher).
 */
export function builtAppMain(app: string): string {
  const root = join(__dirname, '..', '..', '..', '..');
  const dist = basename(root) === 'dist' ? root : join(root, 'dist');
  return join(dist, 'apps', app, 'src', 'main.js');
}

/** The built platform, as `npm start` runs it. */
export const PLATFORM_MAIN = builtAppMain('platform');

export interface PlatformProcess {
  child: ChildProcess;
  /** What the process wrote so far. */
  stdout(): string;
  stderr(): string;
}

/** Spawns the built platform with these variables on top of the test's environment. */
export function spawnPlatform(env: NodeJS.ProcessEnv): PlatformProcess {
  const child = spawn(process.execPath, [PLATFORM_MAIN], {
    env: { ...process.env, HOST: '127.0.0.1', DASHBOARD_PORT: '0', ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let stdout = '';
  let stderr = '';
  child.stdout?.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
  child.stderr?.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
  return { child, stdout: () => stdout, stderr: () => stderr };
}

/**
 * Resolves once the banner says where the platform listens; fails if it exits first or takes too long (a
 * budget: on a 2-core CI machine a split topology of 11 processes may be starting beside it).
 */
export function listening(platform: PlatformProcess, withinMs = 90_000): Promise<ChildProcess> {
  const { child } = platform;
  return new Promise((resolve, reject) => {
    const output = () => `stdout:\n${platform.stdout()}\nstderr:\n${platform.stderr()}`;
    const timer = setTimeout(() => {
      cleanup();
      reject(new Error(`the platform did not say it listens within ${withinMs} ms\n${output()}`));
    }, withinMs);
    const check = () => {
      if (!platform.stderr().includes('listening on')) return;
      cleanup();
      resolve(child);
    };
    const onExit = (code: number | null) => {
      cleanup();
      reject(new Error(`platform exited with ${code} before listening:\n${output()}`));
    };
    const cleanup = () => {
      clearTimeout(timer);
      child.stderr?.off('data', check);
      child.off('exit', onExit);
    };
    child.stderr?.on('data', check);
    child.once('exit', onExit);
    check();
  });
}

/** Resolves with the exit code once the process has exited; fails if it is still running after `withinMs`. */
export function exited(child: ChildProcess, withinMs = 30_000): Promise<number | null> {
  return new Promise((resolve, reject) => {
    if (child.exitCode !== null || child.signalCode !== null) return resolve(child.exitCode);
    const timer = setTimeout(
      () => reject(new Error(`the platform process ${child.pid} did not exit within ${withinMs} ms`)),
      withinMs,
    );
    child.once('exit', (code) => {
      clearTimeout(timer);
      resolve(code);
    });
  });
}
