import { API_KEY_PREFIX } from '@cip/distributors/domain';
import type { PlatformService } from '@cip/platform/registry';
import { newPersonalDataMasterKey } from '@cip/shared/eventing';
import { loadOrCreateSecret } from '@cip/shared/runtime';
import { ChildProcess, spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { createWriteStream, mkdirSync, rmSync, writeFileSync, WriteStream } from 'node:fs';
import { join, resolve } from 'node:path';
import { freePorts } from '@cip/shared/runtime';
import { builtAppMain } from './platform-process';

/** Where each process's /health and /metrics listen by default: 9464 (METRICS_PORT's default) and up. */
const FIRST_METRICS_PORT = 9464;

export type SplitStoreDriver = 'embedded' | 'postgres' | 'distributed';

export interface SplitTopologyOptions {
  /** Every process's DATA_DIR (the embedded stores, the secrets, `logs/<process>.log`). */
  dataDir: string;
  /**
   * `embedded` (SQLite under DATA_DIR), `postgres` (DATABASE_URL, KAFKA_BROKERS, plus the relay) or
   * `distributed` (EVENTSTORE_URL, KAFKA_BROKERS, MONGO_URL, plus the relay).
   */
  driver?: SplitStoreDriver;
  /**
   * `table` (default): the ports of PLATFORM_SERVICES (or `<SERVICE>_TCP_PORT`), PORT 3000, DASHBOARD_PORT 3001,
   * SIMULATOR_ISO_PORT 8583, /health from 9464 up; `free`: free ones below the kernel's ephemeral range, which
   * no other process (no other Jest worker) takes between the pick and the listen (`freePorts`).
   */
  ports?: 'table' | 'free';
  /** The sandbox key the gateway registers (BOOTSTRAP_SANDBOX_API_KEY); by default one kept under DATA_DIR/secrets. */
  sandboxKey?: string;
  /** Variables every process gets on top of this process's environment. */
  env?: NodeJS.ProcessEnv;
  /**
   * More instances of a service than one (server drivers: their consumer groups share Kafka's partitions),
   * e.g. `{ users: 2 }`: the others are named `users-2`…, each on TCP and /health ports of its own. The
   * callers reach the first one (the table's address); the others take their share of the projections and
   * sagas, as replicas behind a Service would.
   */
  replicas?: Readonly<Record<string, number>>;
  /** How long every process has to answer its /health (default 60 s). */
  startTimeoutMs?: number;
  /** A process exited that nobody stopped (not `kill`, `restart` or `close`): the others keep running. */
  onExit?(process: SplitProcess, code: number | null, signal: NodeJS.Signals | null): void;
}

export interface SplitProcess {
  readonly name: string;
  /** The pid of the running process (the last one started). */
  readonly pid: number;
  /** Its TCP port (a service's contracts), HTTP port (gateway, dashboard) and /health port. */
  readonly ports: { tcp?: number; http?: number; health: number };
  /** Where its output goes (`DATA_DIR/logs/<name>.log`, appended across restarts). */
  readonly logFile: string;
  /** Sends the signal; resolves once the process has exited. */
  kill(signal?: NodeJS.Signals): Promise<void>;
  /** Starts it again with the same environment and ports; resolves once its /health answers. */
  restart(): Promise<void>;
}

export interface SplitTopology {
  gatewayUrl: string;
  dashboardUrl: string;
  sandboxKey: string;
  dataDir: string;
  /** Every process: the services of PLATFORM_SERVICES, then gateway, dashboard (and relay when distributed). */
  services: SplitProcess[];
  /** Stops every process (SIGTERM, then SIGKILL after a grace period). */
  close(): Promise<void>;
}

interface ProcessSpec {
  name: string;
  main: string;
  env: NodeJS.ProcessEnv;
  ports: SplitProcess['ports'];
  healthUrl: string;
}

/** The default sandbox key of a data directory: made on its first split start, kept beside its other secrets. */
function sandboxKeyOf(dataDir: string): string {
  return loadOrCreateSecret({
    dataDir,
    name: 'split-sandbox-api-key',
    generate: () => `${API_KEY_PREFIX.sandbox}${randomBytes(24).toString('hex')}`,
  });
}

/** What each process of the topology runs, on which ports, with which variables. */
async function plan(options: SplitTopologyOptions, driver: SplitStoreDriver, sandboxKey: string) {
  // Loaded here, not with this file: the registry brings every context, which the one-process helpers of
  // this lib (platform-process.ts), imported by many specs, do not need.
  const { PLATFORM_SERVICES, serviceEnvPrefix, variablesReadBy, wiringOf } =
    (await import('@cip/platform/registry')) as {
      PLATFORM_SERVICES: readonly PlatformService[];
      serviceEnvPrefix(service: string): string;
      variablesReadBy(app: string, driver: SplitStoreDriver): Set<string>;
      wiringOf(app: string, driver: SplitStoreDriver): string[];
    };
  // The table's ports, unless the environment names others (as it would for the apps themselves).
  const env = { ...process.env, ...options.env };
  const port = (name: string, fallback: number) => Number(env[name]) || fallback;
  const table = [
    ...PLATFORM_SERVICES.flatMap((service, i) => [
      port(`${serviceEnvPrefix(service.name)}_TCP_PORT`, service.tcpPort),
      FIRST_METRICS_PORT + i,
    ]),
    port('PORT', 3000),
    port('DASHBOARD_PORT', 3001),
    port('SIMULATOR_ISO_PORT', 8583),
    FIRST_METRICS_PORT + PLATFORM_SERVICES.length,
  ];
  // Extra replicas: a TCP and a /health port each, after the table's (free ones, or counted on from its end).
  const extra = Object.entries(options.replicas ?? {}).flatMap(([name, count]) => {
    if (driver === 'embedded')
      throw new Error('Replicas need a server driver: the embedded bus is one process');
    if (!PLATFORM_SERVICES.some((service) => service.name === name))
      throw new Error(`No service named ${name}`);
    return Array.from({ length: Math.max(0, count - 1) }, (_, i) => `${name}-${i + 2}`);
  });
  const allPorts =
    options.ports === 'free'
      ? await freePorts(table.length + 2 * extra.length)
      : [...table, ...extra.flatMap((_, i) => [5010 + i, FIRST_METRICS_PORT + 100 + i])];
  const ports = allPorts.slice(0, table.length);
  const replicaPorts = allPorts.slice(table.length);
  const services = PLATFORM_SERVICES.map((service, i) => ({
    name: service.name,
    tcp: ports[2 * i],
    health: ports[2 * i + 1],
  }));
  const [gatewayPort, dashboardPort, isoPort, relayHealth] = ports.slice(2 * PLATFORM_SERVICES.length);
  const gatewayUrl = `http://127.0.0.1:${gatewayPort}`;
  // The wiring of the topology: each process is given those its app reads (PLATFORM_APP_VARIABLES).
  const wiring: Record<string, string> = {
    // On this host only: the services' TCP ports take commands without API keys.
    HOST: env.HOST || '127.0.0.1',
    SIMULATOR_ISO_HOST: env.SIMULATOR_ISO_HOST || '127.0.0.1',
    STORE_DRIVER: driver,
    DATA_DIR: options.dataDir,
    PUBLIC_BASE_URL: options.env?.PUBLIC_BASE_URL ?? process.env.PUBLIC_BASE_URL ?? gatewayUrl,
    GATEWAY_URL: gatewayUrl,
    SIMULATOR_ISO_PORT: String(isoPort),
    BOOTSTRAP_SANDBOX_API_KEY: sandboxKey,
  };
  const servers = driver !== 'embedded';
  if (servers && !env.PERSONAL_DATA_MASTER_KEY) {
    // The server drivers' apps take it from the environment only; the embedded ones' (same file) serves all.
    wiring.PERSONAL_DATA_MASTER_KEY = loadOrCreateSecret({
      dataDir: options.dataDir,
      name: 'personal-data-master-key',
      generate: newPersonalDataMasterKey,
    });
  }
  if (servers) {
    // The vault on a server takes every key from the configuration (the cards service's replicas share it):
    // on one host, keys kept under DATA_DIR/secrets stand in for the deployment's secret store.
    const { cardVaultKeyVariables } = await import('@cip/cards/vault');
    for (const environment of ['sandbox', 'production']) {
      for (const [name, value] of Object.entries(cardVaultKeyVariables(options.dataDir, environment))) {
        if (!env[name]) wiring[name] = value;
      }
    }
  }
  for (const service of services) {
    const prefix = serviceEnvPrefix(service.name);
    wiring[`${prefix}_HOST`] = '127.0.0.1';
    wiring[`${prefix}_TCP_PORT`] = String(service.tcp);
  }
  /** This process's environment and `app`'s wiring (`own`: its ports), of which it gets what `app` reads. */
  const envOf = (app: string, own: Record<string, string>): NodeJS.ProcessEnv => {
    const values = { ...wiring, ...own };
    const missing = wiringOf(app, driver).filter((name) => values[name] === undefined);
    if (missing.length) {
      throw new Error(`The split launcher has no value for ${missing.join(', ')}, which ${app} needs`);
    }
    const read = variablesReadBy(app, driver);
    return {
      ...env,
      ...Object.fromEntries(Object.entries(values).filter(([name]) => read.has(name))),
    };
  };
  const specs: ProcessSpec[] = services.map((service) => ({
    name: service.name,
    main: builtAppMain(service.name),
    env: envOf(service.name, { METRICS_PORT: String(service.health) }),
    ports: { tcp: service.tcp, health: service.health },
    healthUrl: `http://127.0.0.1:${service.health}/health`,
  }));
  extra.forEach((name, i) => {
    const service = name.replace(/-\d+$/, '');
    const [tcp, health] = replicaPorts.slice(2 * i, 2 * i + 2);
    specs.push({
      name,
      main: builtAppMain(service),
      env: envOf(service, {
        METRICS_PORT: String(health),
        [`${serviceEnvPrefix(service)}_TCP_PORT`]: String(tcp),
        KAFKA_CLIENT_ID: `cip-${name}`,
      }),
      ports: { tcp, health },
      healthUrl: `http://127.0.0.1:${health}/health`,
    });
  });
  specs.push(
    {
      name: 'gateway',
      main: builtAppMain('gateway'),
      env: envOf('gateway', { PORT: String(gatewayPort) }),
      ports: { http: gatewayPort, health: gatewayPort },
      healthUrl: `${gatewayUrl}/health`,
    },
    {
      name: 'dashboard',
      main: builtAppMain('dashboard'),
      env: envOf('dashboard', { DASHBOARD_PORT: String(dashboardPort) }),
      ports: { http: dashboardPort, health: dashboardPort },
      healthUrl: `http://127.0.0.1:${dashboardPort}/health`,
    },
  );
  if (servers) {
    // The only path from the stores to Kafka: exactly one per deployment.
    specs.push({
      name: 'relay',
      main: builtAppMain('relay'),
      env: envOf('relay', { METRICS_PORT: String(relayHealth) }),
      ports: { health: relayHealth },
      healthUrl: `http://127.0.0.1:${relayHealth}/health`,
    });
  }
  return { specs, gatewayUrl, dashboardUrl: `http://127.0.0.1:${dashboardPort}` };
}

/** Keeps the end of what a process wrote, for the message when it fails. */
const TAIL_BYTES = 4_000;

/** One process of the topology: started, restarted, its output appended to `logs/<name>.log`. */
class ManagedProcess implements SplitProcess {
  private child!: ChildProcess;
  private tail = '';
  private stopping = false;
  private readonly log: WriteStream;
  readonly logFile: string;

  constructor(
    private readonly spec: ProcessSpec,
    logDir: string,
    private readonly startTimeoutMs: number,
    private readonly onExit?: SplitTopologyOptions['onExit'],
  ) {
    this.logFile = join(logDir, `${spec.name}.log`);
    this.log = createWriteStream(this.logFile, { flags: 'a' });
  }

  get name(): string {
    return this.spec.name;
  }

  get pid(): number {
    return this.child.pid ?? -1;
  }

  get ports(): SplitProcess['ports'] {
    return this.spec.ports;
  }

  get running(): boolean {
    return this.child.exitCode === null && this.child.signalCode === null;
  }

  /** The end of its output, for a failure message. */
  output(): string {
    return this.tail;
  }

  start(): ChildProcess {
    this.stopping = false;
    this.child = spawn(process.execPath, [this.spec.main], {
      env: this.spec.env,
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    const keep = (chunk: Buffer) => {
      this.log.write(chunk);
      this.tail = (this.tail + chunk.toString()).slice(-TAIL_BYTES);
    };
    this.child.stdout?.on('data', keep);
    this.child.stderr?.on('data', keep);
    this.child.once('exit', (code, signal) => {
      if (!this.stopping) this.onExit?.(this, code, signal);
    });
    return this.child;
  }

  /** Resolves once /health answers 200; rejects if the process exits first or the bound passes. */
  async healthy(): Promise<void> {
    const child = this.child;
    const deadline = Date.now() + this.startTimeoutMs;
    for (;;) {
      if (child.exitCode !== null || child.signalCode !== null) {
        throw new Error(
          `${this.name} exited (${child.exitCode ?? child.signalCode}) before it was healthy:\n${this.tail}`,
        );
      }
      const status = await fetch(this.spec.healthUrl, { signal: AbortSignal.timeout(2_000) }).then(
        (response) => response.status,
        () => 0,
      );
      if (status === 200) return;
      if (Date.now() > deadline) {
        throw new Error(
          `${this.name} did not answer ${this.spec.healthUrl} with 200 within ${this.startTimeoutMs} ms (last: ${status}):\n${this.tail}`,
        );
      }
      await new Promise((resolveWait) => setTimeout(resolveWait, 100));
    }
  }

  kill(signal: NodeJS.Signals = 'SIGTERM'): Promise<void> {
    const child = this.child;
    if (!this.running) return Promise.resolve();
    this.stopping = true;
    const exited = new Promise<void>((resolveExit) => child.once('exit', () => resolveExit()));
    child.kill(signal);
    return exited;
  }

  async restart(): Promise<void> {
    await this.kill('SIGTERM');
    this.start();
    await this.healthy();
  }

  /** SIGTERM, then SIGKILL if it has not exited after `graceMs`. */
  async stop(graceMs = 10_000): Promise<void> {
    if (!this.running) return;
    const child = this.child;
    const timer = setTimeout(() => child.kill('SIGKILL'), graceMs);
    await this.kill('SIGTERM');
    clearTimeout(timer);
  }

  closeLog(): Promise<void> {
    return new Promise((resolveClose) => this.log.end(() => resolveClose()));
  }
}

/**
 * Starts the platform split into its processes on this host, as `npm run start:split` does: every service of
 * PLATFORM_SERVICES, the gateway and the dashboard (and the relay on the distributed driver), all at once, each
 * `node dist/apps/<name>/src/main.js` (build first), on one DATA_DIR. Resolves once every /health answers; if a
 * process fails to start, stops the others and rejects with its output. The gateway bootstraps the control
 * plane (the default distributor and the sandbox key).
 */
export async function startSplitTopology(options: SplitTopologyOptions): Promise<SplitTopology> {
  const dataDir = resolve(options.dataDir);
  const driver = options.driver ?? 'embedded';
  mkdirSync(dataDir, { recursive: true, mode: 0o700 });
  const logDir = join(dataDir, 'logs');
  mkdirSync(logDir, { recursive: true, mode: 0o700 });
  const sandboxKey = options.sandboxKey ?? sandboxKeyOf(dataDir);
  const { specs, gatewayUrl, dashboardUrl } = await plan({ ...options, dataDir }, driver, sandboxKey);
  const processes = specs.map(
    (spec) => new ManagedProcess(spec, logDir, options.startTimeoutMs ?? 60_000, options.onExit),
  );
  // Tells the CLI that a platform runs on this data directory (projection rebuilds refuse to run beside it).
  const pidFile = join(dataDir, 'platform.pid');
  writeFileSync(pidFile, `${process.pid}\n`);

  // This process ending without `close` (an uncaught error, a test runner quitting) leaves no service behind.
  const killAll = () => processes.forEach((p) => p.running && void p.kill('SIGKILL'));
  process.once('exit', killAll);
  let closed = false;
  const close = async () => {
    if (closed) return;
    closed = true;
    process.off('exit', killAll);
    await Promise.all(processes.map((p) => p.stop()));
    await Promise.all(processes.map((p) => p.closeLog()));
    rmSync(pidFile, { force: true });
  };
  for (const p of processes) p.start();
  try {
    await Promise.all(processes.map((p) => p.healthy()));
  } catch (error) {
    await close();
    throw error;
  }
  return { gatewayUrl, dashboardUrl, sandboxKey, dataDir, services: processes, close };
}
