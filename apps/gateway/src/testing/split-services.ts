import { PLATFORM_SERVICES, serviceEnvPrefix } from '@cip/platform/registry';
import { freePort, within } from '@cip/shared/testing';
import { ChildProcess, spawn } from 'node:child_process';
import { join } from 'node:path';

/** The built app of a service or of the gateway (the e2e project's global setup builds dist/ first). */
export const appMain = (app: string): string =>
  join(__dirname, '..', '..', '..', '..', 'dist', 'apps', app, 'src', 'main.js');

/** One process of the split platform a test started. */
export interface SplitProcess {
  app: string;
  child: ChildProcess;
  /** Its /health and /metrics (METRICS_PORT), or the gateway's HTTP (PORT). */
  httpUrl: string;
  /** What it wrote so far (JSON log lines on stdout, start-up failures on stderr). */
  output(): string;
}

/**
 * The variables every process of one split platform shares: the embedded driver on `dataDir`, and a free
 * TCP port for every service of PLATFORM_SERVICES (started or not: a service the test leaves out answers
 * `503 service_unavailable`, it never reaches another test's process).
 */
export async function splitEnvironment(dataDir: string): Promise<NodeJS.ProcessEnv> {
  const env: NodeJS.ProcessEnv = { STORE_DRIVER: 'embedded', DATA_DIR: dataDir, HOST: '127.0.0.1' };
  for (const service of PLATFORM_SERVICES) {
    const prefix = serviceEnvPrefix(service.name);
    env[`${prefix}_HOST`] = '127.0.0.1';
    env[`${prefix}_TCP_PORT`] = String(await freePort());
  }
  return env;
}

/**
 * Starts `app` (a service of PLATFORM_SERVICES, or `gateway`) with `env` on top of the test's environment,
 * and resolves once it says it listens: a service on its TCP port and METRICS_PORT, the gateway on PORT (both
 * taken free here unless `env` sets them). Fails with its output if it exits first or takes too long.
 */
export async function spawnService(
  app: string,
  env: NodeJS.ProcessEnv,
  withinMs = 30_000,
): Promise<SplitProcess> {
  const portVariable = app === 'gateway' ? 'PORT' : 'METRICS_PORT';
  const port = env[portVariable] ?? String(await freePort());
  const child = spawn(process.execPath, [appMain(app)], {
    env: { ...process.env, LOG_LEVEL: 'info', ...env, [portVariable]: port },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let output = '';
  const started: SplitProcess = {
    app,
    child,
    httpUrl: `http://127.0.0.1:${port}`,
    output: () => output,
  };
  const listening = app === 'gateway' ? '"msg":"gateway listening"' : `"msg":"${app} service listening"`;
  const ready = new Promise<void>((resolve, reject) => {
    const read = (chunk: Buffer) => {
      output += chunk.toString();
      if (output.includes(listening)) resolve();
    };
    child.stdout?.on('data', read);
    child.stderr?.on('data', read);
    child.once('exit', (code, signal) =>
      reject(new Error(`${app} exited (${code ?? signal}) before listening:\n${output}`)),
    );
  });
  await within(ready, { what: `${app} to listen`, timeoutMs: withinMs }).catch((error: Error) => {
    child.kill('SIGKILL');
    throw new Error(`${error.message}\n${output}`);
  });
  return started;
}

/** Stops the processes (SIGTERM: each closes its listeners, consumers and stores) and waits for their exit. */
export async function stopServices(processes: readonly SplitProcess[], withinMs = 15_000): Promise<void> {
  await Promise.all(
    processes.map(async ({ app, child }) => {
      if (child.exitCode !== null || child.signalCode !== null) return;
      const exited = new Promise((resolve) => child.once('exit', resolve));
      child.kill('SIGTERM');
      await within(exited, { what: `${app} to exit`, timeoutMs: withinMs }).catch((error: unknown) => {
        child.kill('SIGKILL');
        throw error;
      });
    }),
  );
}
