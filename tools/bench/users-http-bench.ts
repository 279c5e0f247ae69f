import { randomUUID } from 'node:crypto';
import { createRequire } from 'node:module';
import { statSync } from 'node:fs';
import { join } from 'node:path';
import { formatNumber, printFigures, type Figure } from './append-bench';
import { readConsumerDelays, waitForConsumersCaughtUp, worstGroupP99 } from './consumer-delay';
import {
  mainThreadCpuMs,
  platformCpuMs,
  spawnPlatform,
  stopPlatform,
  waitForHealth,
  type PlatformChild,
} from './startup-memory-bench';

/** The part of autocannon 9's programmatic API used here (the package ships no types). */
interface AutocannonRequest {
  method?: string;
  path?: string;
  headers?: Record<string, string>;
  body?: string;
}

interface AutocannonOptions {
  url: string;
  connections: number;
  duration: number;
  method: string;
  headers: Record<string, string>;
  requests: { method: string; path: string; setupRequest(request: AutocannonRequest): AutocannonRequest }[];
}

interface Histogram {
  average: number;
  p50: number;
  p99: number;
}

export interface AutocannonResult {
  requests: Histogram & { total: number };
  latency: Histogram;
  duration: number;
  errors: number;
  timeouts: number;
  non2xx: number;
  statusCodeStats: Record<string, { count: number }>;
}

export const autocannon = createRequire(__filename)('autocannon') as (
  options: AutocannonOptions,
) => Promise<AutocannonResult>;

const CONNECTIONS = 50;
const WARM_UP_S = 2;
const DURATION_S = 10;
const LOG_LEVEL = 'warn';

// One counter for warm-up and measurement: every request of the run creates a new user (email is unique).
let emails = 0;

/** The two loads issue 16 asks for: without a key, and with a fresh `x-idempotency-key` on every request. */
type Load = 'no key' | 'fresh key';
const LOADS: Load[] = ['no key', 'fresh key'];

/**
 * `connections` clients POSTing to `path` of a platform for `seconds`, each request with the body `body()`
 * makes and, if given, the extra headers `headers()` makes (on top of the API key and JSON content type).
 */
export function postLoad(
  platform: { url: string; apiKey: string },
  path: string,
  connections: number,
  seconds: number,
  body: () => object,
  headers?: () => Record<string, string>,
): Promise<AutocannonResult> {
  const common = { 'x-api-key': platform.apiKey, 'content-type': 'application/json' };
  return autocannon({
    url: platform.url,
    connections,
    duration: seconds,
    method: 'POST',
    headers: common,
    requests: [
      {
        method: 'POST',
        path,
        setupRequest: (request) => {
          request.body = JSON.stringify(body());
          if (headers) request.headers = { ...common, ...headers() };
          return request;
        },
      },
    ],
  });
}

/** `POST /v1/users` at 50 connections for `seconds`, a new user (a unique email) on every request. */
export function usersLoad(
  platform: Pick<PlatformChild, 'url' | 'apiKey'>,
  seconds: number,
  kind: Load = 'no key',
): Promise<AutocannonResult> {
  return postLoad(
    platform,
    '/v1/users',
    CONNECTIONS,
    seconds,
    () => ({
      email: `bench-${++emails}@example.com`,
      firstName: 'Ada',
      lastName: 'Lovelace',
      countryOfResidence: 'FR',
    }),
    kind === 'fresh key' ? () => ({ 'x-idempotency-key': randomUUID() }) : undefined,
  );
}

export function statusCodes(result: AutocannonResult): string {
  return Object.entries(result.statusCodeStats)
    .map(([code, { count }]) => `${code}×${count}`)
    .join(', ');
}

/** Prints the measured run's counts; fails if the platform died during it, and warns when requests failed. */
export function reportMeasuredRun(platform: PlatformChild, seconds: number, result: AutocannonResult): void {
  console.log(
    `  measured ${seconds} s: ${result.requests.total.toLocaleString('en-US')} requests (${statusCodes(result)}), ` +
      `${result.errors} errors, ${result.timeouts} timeouts`,
  );
  if (platform.child.exitCode !== null || platform.child.signalCode !== null) {
    throw new Error(`platform died during the run:\n${platform.output()}`);
  }
  if (result.non2xx || result.errors) {
    console.log(
      `  WARNING: failed requests make the throughput figure meaningless. Platform output:\n${platform.output()}`,
    );
  }
}

interface Build {
  /** `baseline` or `this build` in a side-by-side run; no prefix alone. */
  label?: string;
  /** Another build's dist/apps/platform/src/main.js; this build's by default. */
  main?: string;
}

interface LoadRun {
  result: AutocannonResult;
  cpuPerRequestMs: number;
  /** The main thread's CPU per request, and its CPU time over the run's wall-clock time (0-1). */
  mainThread: { cpuPerRequestMs: number; busy: number };
  /** The slowest consumer group's p99 from command to handled (null: a build without the metric). */
  consumerDelay: { group: string; p99Ms: number } | null;
}

/** One measured run of a load on a running platform, with the platform's CPU time per request from /proc. */
async function measure(platform: PlatformChild, name: string, kind: Load): Promise<LoadRun> {
  const pid = platform.child.pid ?? 0;
  const delaysBefore = await readConsumerDelays(platform.url);
  const cpuBefore = platformCpuMs(pid);
  const mainBefore = mainThreadCpuMs(pid);
  const startedAt = performance.now();
  const result = await usersLoad(platform, DURATION_S, kind);
  const requests = Math.max(1, result.requests.total);
  const cpuPerRequestMs = (platformCpuMs(pid) - cpuBefore) / requests;
  const mainCpuMs = mainThreadCpuMs(pid) - mainBefore;
  const mainThread = {
    cpuPerRequestMs: mainCpuMs / requests,
    busy: mainCpuMs / (performance.now() - startedAt),
  };
  // The consumers finish the run's backlog before the histogram is read (the worst delays are at the end).
  await waitForConsumersCaughtUp(platform.url);
  const consumerDelay = worstGroupP99(delaysBefore, await readConsumerDelays(platform.url));
  console.log(`  ${name}, ${kind}:`);
  reportMeasuredRun(platform, DURATION_S, result);
  return { result, cpuPerRequestMs, mainThread, consumerDelay };
}

function loadFigures(name: string, kind: Load, run: LoadRun): Figure[] {
  const prefix = `${name ? `${name}: ` : ''}POST /v1/users, ${kind}`;
  return [
    {
      label: `${prefix}: throughput (average)`,
      value: run.result.requests.average,
      unit: 'req/s',
      target: { op: '>=', value: 2_500 },
    },
    { label: `${prefix}: latency p50`, value: run.result.latency.p50, unit: 'ms' },
    {
      label: `${prefix}: latency p99`,
      value: run.result.latency.p99,
      unit: 'ms',
      target: { op: '<=', value: 40 },
    },
    { label: `${prefix}: platform CPU per request`, value: run.cpuPerRequestMs, unit: 'ms' },
    { label: `${prefix}: main thread CPU per request`, value: run.mainThread.cpuPerRequestMs, unit: 'ms' },
    { label: `${prefix}: main thread busy (CPU / wall clock)`, value: run.mainThread.busy * 100, unit: '%' },
    {
      label: `${prefix}: consumer lag p99, command to handled (slowest group: ${run.consumerDelay?.group ?? 'not measured by this build'})`,
      value: run.consumerDelay?.p99Ms ?? NaN,
      unit: 'ms',
      target: { op: '<=', value: 100 },
    },
    { label: `${prefix}: non-2xx responses`, value: run.result.non2xx, unit: 'responses' },
    {
      label: `${prefix}: errors (connection errors and timeouts)`,
      value: run.result.errors,
      unit: 'errors',
    },
  ];
}

/**
 * `POST /v1/users` at 50 connections, without and with a fresh idempotency key per request, on each build
 * given (a fresh DATA_DIR each). With two builds both platforms run at once and the loads alternate between
 * them (A B A B), so that the machine's changing load weighs on both alike; the ratios are printed last.
 */
export async function usersHttpBench(builds: Build[] = [{}], profileDir?: string): Promise<Figure[]> {
  console.log('\n== POST /v1/users over HTTP (platform in a child process) ==');
  const platforms: PlatformChild[] = [];
  try {
    for (const build of builds) {
      const profiles = profileDir && join(profileDir, (build.label ?? 'platform').replace(/\W+/g, '-'));
      const platform = await spawnPlatform({
        logLevel: LOG_LEVEL,
        main: build.main,
        nodeArgs: profiles ? ['--cpu-prof', `--cpu-prof-dir=${profiles}`] : [],
      });
      platforms.push(platform);
      const startup = await waitForHealth(platform);
      console.log(
        `  ${build.label ?? 'platform'} healthy ${formatNumber(startup)} ms after spawn; LOG_LEVEL=${LOG_LEVEL}, ` +
          `RATE_LIMIT_PER_SECOND=1000000, fresh DATA_DIR; autocannon ${CONNECTIONS} connections, unique email per request`,
      );
      const warmUp = await usersLoad(platform, WARM_UP_S, 'fresh key');
      console.log(
        `  warm-up ${WARM_UP_S} s: ${warmUp.requests.total.toLocaleString('en-US')} requests (${statusCodes(warmUp)})`,
      );
    }
    /** Per load, one run per build, in the order of `builds`. */
    const runs: Record<Load, LoadRun[]> = { 'no key': [], 'fresh key': [] };
    for (const kind of LOADS) {
      for (const [i, build] of builds.entries()) {
        runs[kind].push(await measure(platforms[i], build.label ?? 'platform', kind));
      }
    }
    const figures = LOADS.flatMap((kind) =>
      builds.flatMap((build, i) => loadFigures(build.label ?? '', kind, runs[kind][i])),
    );
    // ~1.5 GB of WAL frames are written over the runs: the file shows whether the log was started again.
    for (const [i, build] of builds.entries()) {
      figures.push({
        label: `${build.label ? `${build.label}: ` : ''}sandbox WAL file after the runs (bounded near 1 GiB)`,
        value: statSync(join(platforms[i].dataDir, 'sandbox.sqlite-wal')).size / 2 ** 20,
        unit: 'MiB',
      });
    }
    if (builds.length === 2) {
      for (const kind of LOADS) {
        const [base, next] = runs[kind];
        const ratio = (a: number, b: number) => (b ? a / b : NaN);
        figures.push(
          {
            label: `${kind}: throughput, ${builds[1].label} / ${builds[0].label}`,
            value: ratio(next.result.requests.average, base.result.requests.average),
            unit: '×',
          },
          {
            label: `${kind}: p99, ${builds[1].label} / ${builds[0].label}`,
            value: ratio(next.result.latency.p99, base.result.latency.p99),
            unit: '×',
          },
          {
            label: `${kind}: CPU per request, ${builds[1].label} / ${builds[0].label}`,
            value: ratio(next.cpuPerRequestMs, base.cpuPerRequestMs),
            unit: '×',
          },
          {
            label: `${kind}: main thread CPU per request, ${builds[1].label} / ${builds[0].label}`,
            value: ratio(next.mainThread.cpuPerRequestMs, base.mainThread.cpuPerRequestMs),
            unit: '×',
          },
        );
      }
    }
    printFigures(figures);
    return figures;
  } finally {
    for (const platform of platforms) await stopPlatform(platform);
  }
}

// `node dist/tools/bench/users-http-bench.js [--baseline <another build's main.js>] [--cpu-prof <dir>]`: with
// a baseline both builds are measured side by side in the same run; each build's profiles go to a folder of
// its own under <dir> (written when the platform exits).
if (require.main === module) {
  const arg = (name: string) => {
    const at = process.argv.indexOf(name);
    return at > 0 ? process.argv[at + 1] : undefined;
  };
  const baseline = arg('--baseline');
  const builds = baseline ? [{ label: 'baseline', main: baseline }, { label: 'this build' }] : [{}];
  usersHttpBench(builds, arg('--cpu-prof')).catch((error) => {
    console.error(error);
    process.exit(1);
  });
}
