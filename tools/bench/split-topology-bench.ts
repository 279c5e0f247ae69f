import { startSplitTopology, type SplitTopology } from '@cip/platform/topologies';
import { execFileSync } from 'node:child_process';
import { existsSync, mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { loadavg, tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { Client } from 'pg';
import { dropSplitEngines, splitEngineVariables } from '../../apps/platform/src/testing/split-engines';
import { printFigures, type Figure } from './append-bench';
import { call } from './cards-http-bench';
import { fundedCard, simulateAuthorizations, waitForIdle } from './issuer-authorizations-bench';
import {
  platformCpuMs,
  randomSandboxApiKey,
  spawnPlatform,
  stopPlatform,
  waitForHealth,
} from './startup-memory-bench';
import { statusCodes, usersLoad, type AutocannonResult } from './users-http-bench';
import { percentile, Receiver } from './webhooks-delivery-bench';

const WARM_UP_S = 2;
const DURATION_S = 10;
const CONNECTIONS = 50;
/** Funded cards the authorizations are spread over, round robin (set up through the API before the run). */
const CARDS = 16;
const WEBHOOK_WARM_UP = 20;
/** Well under what the split sustains on the shared machine: latency without a backlog. */
const WEBHOOK_RATE_PER_S = 20;
const WEBHOOK_SECONDS = 5;
/** How many processes' CPU per request is printed, the busiest first (the total counts them all). */
const TOP_PROCESSES = 4;
/** dist/tools/bench → the repository, where tools/ci's scripts are. */
const REPO = resolve(__dirname, '../../..');

/** One of the two platforms measured: its API, and the processes whose CPU time counts for it. */
interface Target {
  name: 'embedded' | 'split';
  url: string;
  apiKey: string;
  processes(): { name: string; pid: number }[];
  /** The topology's own database (split): its commits and its server backends' CPU are counted too. */
  database?: { serverUrl: string; name: string };
  /** Why its figures mean nothing (a process died), or null. */
  dead(): string | null;
  stop(): Promise<void>;
}

interface Window {
  result: AutocannonResult;
  seconds: number;
  /** CPU ms per request, by process (the server's backends of the topology's database as `postgres`). */
  cpuPerRequest: Map<string, number>;
  commitsPerSecond: number;
  /** CPU ms per second of all the processes, idle, just before the window (consumers polling, timers). */
  idleCpuPerSecond: number;
}

/** A PostgreSQL server and a Kafka broker: the environment's, or ones this bench starts (and stops). */
interface Engines {
  databaseUrl: string;
  kafkaBrokers: string;
  started: string;
  stop(): void;
}

function available(command: string): boolean {
  try {
    execFileSync('sh', ['-c', `command -v ${command}`], { stdio: 'ignore' });
    return true;
  } catch {
    return false;
  }
}

/** Runs `tools/ci/<script> start <dir>` and returns the value of the `name=` line it prints. */
function ciStart(script: string, dir: string, name: string): string {
  const output = execFileSync('bash', [join(REPO, 'tools/ci', script), 'start', dir], {
    encoding: 'utf8',
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  const value = new RegExp(`^${name}=(.+)$`, 'm').exec(output)?.[1];
  if (!value) throw new Error(`tools/ci/${script} printed no ${name}: ${output}`);
  return value;
}

function startEngines(): Engines | string {
  const { DATABASE_URL, KAFKA_BROKERS } = process.env;
  if (DATABASE_URL && KAFKA_BROKERS) {
    return {
      databaseUrl: DATABASE_URL,
      kafkaBrokers: KAFKA_BROKERS,
      started: 'the environment',
      stop: () => undefined,
    };
  }
  const postgres = existsSync('/usr/lib/postgresql') && readdirSync('/usr/lib/postgresql').length > 0;
  if (!postgres) return 'no PostgreSQL under /usr/lib/postgresql (tools/ci/postgres.sh would install it)';
  if (!available('java')) return 'no java (tools/ci/kafka.sh would install it)';
  const pgDir = join(tmpdir(), `cip-bench-pg-${process.pid}`);
  const kafkaDir = join(tmpdir(), `cip-bench-kafka-${process.pid}`);
  const stop = () => {
    for (const [script, dir] of [
      ['postgres.sh', pgDir],
      ['kafka.sh', kafkaDir],
    ]) {
      execFileSync('bash', [join(REPO, 'tools/ci', script), 'stop', dir], { stdio: 'ignore' });
    }
  };
  try {
    return {
      databaseUrl: ciStart('postgres.sh', pgDir, 'DATABASE_URL'),
      kafkaBrokers: ciStart('kafka.sh', kafkaDir, 'KAFKA_BROKERS'),
      started: 'tools/ci/postgres.sh and kafka.sh (stopped after)',
      stop,
    };
  } catch (error) {
    stop();
    throw error;
  }
}

async function startEmbedded(): Promise<Target> {
  const platform = await spawnPlatform({ env: { WEBHOOK_ALLOW_PRIVATE_URLS: 'true' } });
  await waitForHealth(platform);
  const pid = platform.child.pid as number;
  return {
    name: 'embedded',
    url: platform.url,
    apiKey: platform.apiKey,
    processes: () => [{ name: 'platform', pid }],
    dead: () =>
      platform.child.exitCode === null && platform.child.signalCode === null
        ? null
        : `the platform exited:\n${platform.output()}`,
    stop: () => stopPlatform(platform),
  };
}

/** The split topology on its own database and topic prefix of the engines (dropped when it stops). */
async function startSplit(engines: Engines): Promise<Target> {
  // splitEngineVariables and dropSplitEngines read the servers from the environment.
  process.env.DATABASE_URL = engines.databaseUrl;
  process.env.KAFKA_BROKERS = engines.kafkaBrokers;
  const dataDir = mkdtempSync(join(tmpdir(), 'cip-bench-split-'));
  const exited: string[] = [];
  let topology: SplitTopology | undefined;
  let databaseUrl = '';
  try {
    const variables = await splitEngineVariables(dataDir);
    databaseUrl = variables.DATABASE_URL as string;
    topology = await startSplitTopology({
      dataDir,
      driver: 'postgres',
      ports: 'free',
      // Fourteen processes starting at once on a shared 2-core machine.
      startTimeoutMs: 180_000,
      sandboxKey: randomSandboxApiKey(),
      env: {
        ...variables,
        // The pools' default (the e2e suites' 1 is for two topologies on one small cluster).
        DATABASE_POOL_SIZE: '2',
        LOG_LEVEL: 'warn',
        RATE_LIMIT_PER_SECOND: '1000000',
        RATE_LIMIT_BURST: '1000000',
        WEBHOOK_ALLOW_PRIVATE_URLS: 'true',
      },
      onExit: (p, code, signal) => exited.push(`${p.name} exited (${code ?? signal}), see ${p.logFile}`),
    });
  } catch (error) {
    await dropSplitEngines(dataDir);
    rmSync(dataDir, { recursive: true, force: true });
    throw error;
  }
  const started = topology;
  return {
    name: 'split',
    url: started.gatewayUrl,
    apiKey: started.sandboxKey,
    processes: () => started.services.map((p) => ({ name: p.name, pid: p.pid })),
    database: { serverUrl: engines.databaseUrl, name: new URL(databaseUrl).pathname.slice(1) },
    dead: () => (exited.length ? exited.join('\n') : null),
    stop: async () => {
      await started.close();
      await dropSplitEngines(dataDir);
      rmSync(dataDir, { recursive: true, force: true });
    },
  };
}

/** CPU ms by process name (processes of one name summed); a process gone since counts for nothing. */
function cpuByName(processes: { name: string; pid: number }[]): Map<string, number> {
  const cpu = new Map<string, number>();
  for (const { name, pid } of processes) {
    let ms = 0;
    try {
      ms = platformCpuMs(pid);
    } catch {
      // exited (a pooled backend closed): its share is lost, not negative.
    }
    cpu.set(name, (cpu.get(name) ?? 0) + ms);
  }
  return cpu;
}

/** The topology's database on its server: its committed transactions, and its backends (server processes). */
async function databaseStats(database: NonNullable<Target['database']>) {
  const client = new Client({ connectionString: database.serverUrl });
  await client.connect();
  return {
    async commits(): Promise<number> {
      const { rows } = await client.query<{ commits: string }>(
        'SELECT xact_commit AS commits FROM pg_stat_database WHERE datname = $1',
        [database.name],
      );
      return Number(rows[0]?.commits ?? NaN);
    },
    async backends(): Promise<{ name: string; pid: number }[]> {
      const { rows } = await client.query<{ pid: number }>(
        'SELECT pid FROM pg_stat_activity WHERE datname = $1 AND pid <> pg_backend_pid()',
        [database.name],
      );
      return rows.map(({ pid }) => ({ name: 'postgres (backends)', pid }));
    },
    close: () => client.end(),
  };
}

const IDLE_SAMPLE_MS = 2_000;
const sum = (values: Iterable<number>) => [...values].reduce((a, b) => a + b, 0);

/** Waits for the target's processes to be idle (the previous phase's consumers caught up), at most 15 s. */
function settle(target: Target): Promise<void> {
  const pids = target.processes().map((p) => p.pid);
  return waitForIdle(pids, 25 + 5 * (pids.length - 1), 15_000);
}

/**
 * One measured load on a target: the CPU time of each of its processes (and of its database's backends) over
 * the window from /proc, and the database's commits (pg_stat_database, flushed by the backends within 1 s).
 */
async function measureWindow(
  target: Target,
  label: string,
  load: (seconds: number) => Promise<AutocannonResult>,
): Promise<Window> {
  await settle(target);
  const stats = target.database ? await databaseStats(target.database) : null;
  try {
    const processes = [...target.processes(), ...((await stats?.backends()) ?? [])];
    const idleBefore = sum(cpuByName(processes).values());
    await sleep(IDLE_SAMPLE_MS);
    const idleCpuPerSecond = (sum(cpuByName(processes).values()) - idleBefore) / (IDLE_SAMPLE_MS / 1000);
    const commitsBefore = (await stats?.commits()) ?? NaN;
    const cpuBefore = cpuByName(processes);
    const started = performance.now();
    const result = await load(DURATION_S);
    const seconds = (performance.now() - started) / 1000;
    const cpuAfter = cpuByName(processes);
    await sleep(1_200);
    const commits = ((await stats?.commits()) ?? NaN) - commitsBefore;
    const requests = Math.max(1, result.requests.total);
    const cpuPerRequest = new Map(
      [...cpuAfter].map(([name, ms]) => [name, (ms - (cpuBefore.get(name) ?? 0)) / requests]),
    );
    console.log(
      `  ${target.name}, ${label}: ${result.requests.total.toLocaleString('en-US')} requests ` +
        `(${statusCodes(result)}), ${result.errors} errors, ${result.timeouts} timeouts`,
    );
    const dead = target.dead();
    if (dead) throw new Error(`${target.name} lost a process during ${label}:\n${dead}`);
    return { result, seconds, cpuPerRequest, commitsPerSecond: commits / seconds, idleCpuPerSecond };
  } finally {
    await stats?.close();
  }
}

function windowFigures(target: Target, label: string, window: Window): Figure[] {
  const prefix = `${target.name}: ${label}`;
  const total = sum(window.cpuPerRequest.values());
  const idlePerRequest =
    (window.idleCpuPerSecond * window.seconds) / Math.max(1, window.result.requests.total);
  const busiest = [...window.cpuPerRequest].sort((a, b) => b[1] - a[1]).slice(0, TOP_PROCESSES);
  return [
    { label: `${prefix}: throughput`, value: window.result.requests.average, unit: 'req/s' },
    { label: `${prefix}: latency p50`, value: window.result.latency.p50, unit: 'ms' },
    { label: `${prefix}: latency p99`, value: window.result.latency.p99, unit: 'ms' },
    { label: `${prefix}: CPU per request, all processes`, value: total, unit: 'ms' },
    {
      label: `${prefix}: CPU per request, all processes, less their idle rate`,
      value: total - idlePerRequest,
      unit: 'ms',
    },
    {
      label: `${prefix}: idle CPU before the window, all processes`,
      value: window.idleCpuPerSecond,
      unit: 'ms/s',
    },
    ...busiest.map(([name, ms]) => ({ label: `${prefix}: CPU per request, ${name}`, value: ms, unit: 'ms' })),
    ...(target.database
      ? [{ label: `${prefix}: PostgreSQL commits/s`, value: window.commitsPerSecond, unit: 'commits/s' }]
      : []),
    { label: `${prefix}: non-2xx responses`, value: window.result.non2xx, unit: 'responses' },
  ];
}

let webhookUsers = 0;

/**
 * Event-to-webhook latency: a local receiver subscribed, users created at a steady 50/s (no backlog); each
 * user.created's delay from the event's createdAt to its arrival at the receiver. The subscription is
 * deleted after, so that the loads that follow deliver nothing.
 */
async function webhookLatencies(
  target: Target,
  receiver: Receiver,
): Promise<{ latencies: number[]; missing: number }> {
  const subscription = (await call(target, 'POST', '/v1/webhook-subscriptions', { url: receiver.url })) as {
    id: string;
    status: string;
  };
  if (subscription.status !== 'active') {
    throw new Error(`${target.name}: subscription not verified: ${JSON.stringify(subscription)}`);
  }
  // Deliveries that do not come in time are counted, not waited for (seen on the split under heavy load).
  const trickle = async (count: number, timeoutMs: number) => {
    const created: Promise<unknown>[] = [];
    for (let i = 0; i < count; i++) {
      created.push(
        call(target, 'POST', '/v1/users', {
          email: `webhook-bench-${++webhookUsers}@example.com`,
          firstName: 'Ada',
          lastName: 'Lovelace',
          countryOfResidence: 'FR',
        }),
      );
      await sleep(1000 / WEBHOOK_RATE_PER_S);
    }
    await Promise.all(created);
    return receiver.collect(count, timeoutMs, true);
  };
  try {
    await trickle(WEBHOOK_WARM_UP, 60_000);
    const sent = WEBHOOK_RATE_PER_S * WEBHOOK_SECONDS;
    const startedAt = Date.now();
    // Only the events of this trickle: a warm-up delivery late in coming is not one of them.
    const arrivals = (await trickle(sent, 30_000)).filter(([, at, ms]) => at - ms >= startedAt);
    return {
      latencies: arrivals.map(([, , ms]) => ms).sort((a, b) => a - b),
      missing: sent - arrivals.length,
    };
  } finally {
    await fetch(`${target.url}/v1/webhook-subscriptions/${subscription.id}`, {
      method: 'DELETE',
      headers: { 'x-api-key': target.apiKey },
    });
  }
}

const loadAverage = () =>
  loadavg()
    .map((l) => l.toFixed(2))
    .join(', ');

/**
 * The embedded one-process platform and the split topology on PostgreSQL + Kafka (one process per service,
 * gateway, dashboard, relay), both running, measured phase by phase one after the other (embedded, then
 * split): event-to-webhook latency, POST /v1/users, then authorizations through the sandbox card network
 * (POST /v1/simulate/authorization: on the split, gateway -> simulator service -> ISO 8583 -> the
 * authorizations service as issuer). No targets: a baseline for scaling out, with the split/embedded ratios.
 */
export async function splitTopologyBench(): Promise<Figure[]> {
  console.log('\n== The embedded platform and the split topology on PostgreSQL + Kafka, side by side ==');
  const engines = startEngines();
  if (typeof engines === 'string') {
    console.log(`  skipped: ${engines}`);
    return [];
  }
  const targets: Target[] = [];
  const receiver = await Receiver.start();
  try {
    targets.push(await startEmbedded());
    targets.push(await startSplit(engines));
    const [embedded, split] = targets;
    console.log(
      `  engines: ${engines.started}; split: ${split.processes().length} processes; load average ${loadAverage()}`,
    );
    const webhooks = new Map<Target, { latencies: number[]; missing: number }>();
    for (const target of targets) webhooks.set(target, await webhookLatencies(target, receiver));

    const users = new Map<Target, Window>();
    for (const target of targets) await usersLoad(target, WARM_UP_S);
    for (const target of targets) {
      users.set(target, await measureWindow(target, 'POST /v1/users', (s) => usersLoad(target, s)));
    }

    const authorizations = new Map<Target, Window>();
    const authLabel = 'POST /v1/simulate/authorization';
    for (const target of targets) {
      const cards = await Promise.all(Array.from({ length: CARDS }, (_, i) => fundedCard(target, i)));
      const load = (seconds: number) => simulateAuthorizations(target, cards, CONNECTIONS, seconds);
      await load(WARM_UP_S);
      authorizations.set(target, await measureWindow(target, authLabel, load));
    }
    console.log(`  load average after the runs: ${loadAverage()}`);

    const figures: Figure[] = targets.flatMap((target) => [
      ...windowFigures(target, 'POST /v1/users', users.get(target) as Window),
      ...windowFigures(target, authLabel, authorizations.get(target) as Window),
      ...[50, 99].map((p) => ({
        label: `${target.name}: event-to-webhook p${p} (${WEBHOOK_RATE_PER_S} users/s)`,
        value: percentile(webhooks.get(target)?.latencies ?? [], p),
        unit: 'ms',
      })),
      {
        label: `${target.name}: webhooks not delivered within 30 s of the last user`,
        value: webhooks.get(target)?.missing ?? NaN,
        unit: 'users',
      },
    ]);
    const ratio = (label: string) => {
      const of = (target: Target) =>
        figures.find((f) => f.label === `${target.name}: ${label}`)?.value ?? NaN;
      return { label: `split / embedded: ${label}`, value: of(split) / of(embedded), unit: '×' };
    };
    for (const label of ['POST /v1/users', authLabel]) {
      for (const figure of [
        'throughput',
        'latency p50',
        'latency p99',
        'CPU per request, all processes',
        'CPU per request, all processes, less their idle rate',
      ]) {
        figures.push(ratio(`${label}: ${figure}`));
      }
    }
    figures.push(...[50, 99].map((p) => ratio(`event-to-webhook p${p} (${WEBHOOK_RATE_PER_S} users/s)`)));
    printFigures(figures);
    console.log(
      `  (${DURATION_S} s windows at ${CONNECTIONS} connections, ${CARDS} funded cards; CPU from /proc, the split's ` +
        `counting its database's PostgreSQL backends, not the broker; a shared machine: indicative)`,
    );
    return figures;
  } finally {
    for (const target of targets) await target.stop();
    await receiver.stop();
    engines.stop();
  }
}

// `node dist/tools/bench/split-topology-bench.js`: DATABASE_URL and KAFKA_BROKERS, or its own cluster and broker.
if (require.main === module) {
  splitTopologyBench().then(
    () => process.exit(0),
    (error: unknown) => {
      console.error(error);
      process.exit(1);
    },
  );
}
