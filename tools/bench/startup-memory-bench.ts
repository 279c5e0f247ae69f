import { spawn, type ChildProcess } from 'node:child_process';
import { randomInt } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { get } from 'node:http';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { formatNumber, printFigures, type Figure } from './append-bench';
// A port the OS says is free now; the child binds it a moment later, which is good enough for a bench.
import { freePort } from '@cip/platform/topologies';

/** dist/tools/bench → dist/apps/platform/src/main.js: the benches run the compiled platform, as `npm start` does. */
const PLATFORM_MAIN = resolve(__dirname, '../../apps/platform/src/main.js');
const BASE62 = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789';

const running = new Set<ChildProcess>();
// A bench that crashes or is interrupted must not leave a platform holding a port and a temp directory.
process.once('exit', () => {
  for (const child of running) child.kill('SIGKILL');
});

export interface PlatformChild {
  child: ChildProcess;
  port: number;
  url: string;
  apiKey: string;
  dataDir: string;
  spawnedAt: number;
  /** The last lines the platform wrote, to explain a failure. */
  output(): string;
}

export function randomSandboxApiKey(): string {
  let key = 'sk_sandbox_';
  for (let i = 0; i < 32; i++) key += BASE62[randomInt(BASE62.length)];
  return key;
}

/**
 * CPU time (user + system, ms) a process has used, from /proc: compare builds on CPU per operation (steady)
 * rather than on throughput alone (it moves with the shared machine's load).
 */
export function platformCpuMs(pid: number): number {
  return cpuMsOf(`/proc/${pid}/stat`);
}

/**
 * CPU time of the process's main thread alone (its JavaScript: requests, consumers, commits), from
 * /proc/<pid>/task/<pid>/stat. Under load it is the bottleneck: its share of the wall-clock time says how
 * close to saturated the platform is, and its CPU per operation is steadier than the whole process's (which
 * also counts the checkpointer's thread and libuv's pool).
 */
export function mainThreadCpuMs(pid: number): number {
  return cpuMsOf(`/proc/${pid}/task/${pid}/stat`);
}

function cpuMsOf(statFile: string): number {
  // utime and stime, fields 14 and 15 of proc(5), in clock ticks of 10 ms; the command name may hold spaces.
  const fields = readFileSync(statFile, 'utf8').split(') ')[1].split(' ');
  return (Number(fields[11]) + Number(fields[12])) * 10;
}

export async function spawnPlatform(
  options: {
    logLevel?: string;
    /** Another build's platform (a baseline to compare with); this build's by default. */
    main?: string;
    /** More environment for the child (e.g. CARD_NETWORK_ISO_ADDRESS). */
    env?: Record<string, string>;
    /** More Node options for the child (e.g. --cpu-prof). */
    nodeArgs?: string[];
  } = {},
): Promise<PlatformChild> {
  const port = await freePort();
  const apiKey = randomSandboxApiKey();
  const dataDir = mkdtempSync(join(tmpdir(), 'cip-bench-platform-'));
  const tail: string[] = [];
  const spawnedAt = performance.now();
  const child = spawn(process.execPath, [...(options.nodeArgs ?? []), options.main ?? PLATFORM_MAIN], {
    env: {
      ...process.env,
      PORT: String(port),
      // The operator app (dashboard) on any free port: two benches, or a bench beside a platform, never collide.
      DASHBOARD_PORT: '0',
      DATA_DIR: dataDir,
      LOG_LEVEL: options.logLevel ?? 'warn',
      BOOTSTRAP_SANDBOX_API_KEY: apiKey,
      RATE_LIMIT_PER_SECOND: '1000000',
      ...options.env,
    },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  running.add(child);
  child.once('exit', () => running.delete(child));
  // Always drain the pipes: a child blocked on a full stdout pipe would look like a slow server.
  const keep = (chunk: Buffer) => {
    tail.push(...chunk.toString().split('\n').filter(Boolean));
    tail.splice(0, Math.max(0, tail.length - 30));
  };
  child.stdout?.on('data', keep);
  child.stderr?.on('data', keep);
  return {
    child,
    port,
    url: `http://127.0.0.1:${port}`,
    apiKey,
    dataDir,
    spawnedAt,
    output: () => tail.join('\n'),
  };
}

function healthStatus(url: string): Promise<number> {
  return new Promise((done) => {
    const request = get(`${url}/health`, { agent: false, timeout: 1_000 }, (response) => {
      response.resume();
      done(response.statusCode ?? 0);
    });
    request.on('timeout', () => request.destroy());
    request.on('error', () => done(0));
  });
}

/** Polls /health until the first 200; returns the time from spawn to that answer (ms). */
export async function waitForHealth(platform: PlatformChild, timeoutMs = 30_000): Promise<number> {
  for (;;) {
    if (platform.child.exitCode !== null || platform.child.signalCode !== null) {
      throw new Error(
        `platform exited (${platform.child.exitCode ?? platform.child.signalCode}):\n${platform.output()}`,
      );
    }
    if ((await healthStatus(platform.url)) === 200) return performance.now() - platform.spawnedAt;
    if (performance.now() - platform.spawnedAt > timeoutMs) {
      throw new Error(`platform not healthy after ${timeoutMs} ms:\n${platform.output()}`);
    }
    await sleep(5);
  }
}

/** SIGTERM, then SIGKILL if it has not exited within 5 s; removes its data directory. */
export async function stopPlatform(platform: PlatformChild): Promise<void> {
  const { child } = platform;
  const alive = () => child.exitCode === null && child.signalCode === null;
  if (alive()) {
    const exited = new Promise<void>((done) => child.once('exit', () => done()));
    child.kill('SIGTERM');
    const stopped = await Promise.race([exited.then(() => true), sleep(5_000).then(() => false)]);
    if (!stopped && alive()) {
      child.kill('SIGKILL');
      await exited;
    }
  }
  rmSync(platform.dataDir, { recursive: true, force: true });
}

function residentMiB(pid: number): number {
  const kib = /^VmRSS:\s+(\d+)\s+kB/m.exec(readFileSync(`/proc/${pid}/status`, 'utf8'));
  if (!kib) throw new Error(`no VmRSS for pid ${pid}`);
  return Number(kib[1]) / 1024;
}

const median = (values: number[]) => {
  const sorted = [...values].sort((a, b) => a - b);
  const mid = Math.floor(sorted.length / 2);
  return sorted.length % 2 ? sorted[mid] : (sorted[mid - 1] + sorted[mid]) / 2;
};

const RUNS = 3;
const IDLE_MS = 3_000;

interface Build {
  /** `baseline` or `this build` in a side-by-side run; no prefix alone. */
  label?: string;
  /** Another build's dist/apps/platform/src/main.js; this build's by default. */
  main?: string;
}

/**
 * With several builds, the runs alternate (A B A B ...) so that the shared machine's load falls on each alike;
 * the figures are printed per build, prefixed with its label, then as ratios against the first (the baseline).
 */
export async function startupMemoryBench(builds: Build[] = [{}], runs = RUNS): Promise<Figure[]> {
  console.log('\n== Platform start-up and idle memory ==');
  console.log(
    `  ${runs} runs${builds.length > 1 ? ' per build, alternating' : ''}, each a fresh DATA_DIR, LOG_LEVEL=warn; ` +
      `RSS read ${IDLE_MS / 1000} s after the first 200`,
  );
  const startups = builds.map((): number[] => []);
  const rss = builds.map((): number[] => []);
  for (let run = 1; run <= runs; run++) {
    for (const [i, build] of builds.entries()) {
      const platform = await spawnPlatform({ logLevel: 'warn', main: build.main });
      try {
        const startup = await waitForHealth(platform);
        await sleep(IDLE_MS);
        const pid = platform.child.pid;
        if (pid === undefined) throw new Error('platform has no pid');
        const mib = residentMiB(pid);
        startups[i].push(startup);
        rss[i].push(mib);
        const label = build.label ? `${build.label}, ` : '';
        console.log(
          `  ${label}run ${run}: first 200 on /health ${formatNumber(startup)} ms after spawn, idle RSS ${formatNumber(mib)} MiB`,
        );
      } finally {
        await stopPlatform(platform);
      }
    }
  }
  const figures: Figure[] = builds.flatMap((build, i) => {
    const prefix = build.label ? `${build.label}: ` : '';
    return [
      {
        label: `${prefix}Start-up, spawn to first 200 on /health (min)`,
        value: Math.min(...startups[i]),
        unit: 'ms',
      },
      {
        label: `${prefix}Start-up, spawn to first 200 on /health (median)`,
        value: median(startups[i]),
        unit: 'ms',
      },
      { label: `${prefix}Idle RSS after ${IDLE_MS / 1000} s (median)`, value: median(rss[i]), unit: 'MiB' },
    ];
  });
  for (let i = 1; i < builds.length; i++) {
    const vs = `${builds[i].label} / ${builds[0].label}`;
    figures.push(
      { label: `${vs}: start-up (median)`, value: median(startups[i]) / median(startups[0]), unit: '×' },
      { label: `${vs}: idle RSS (median)`, value: median(rss[i]) / median(rss[0]), unit: '×' },
    );
  }
  printFigures(figures);
  return figures;
}

// `node dist/tools/bench/startup-memory-bench.js [--baseline <another build's main.js>] [--runs <n>]`: with a
// baseline both builds are measured side by side in the same run, alternating.
if (require.main === module) {
  const arg = (name: string) => {
    const at = process.argv.indexOf(name);
    return at > 0 ? process.argv[at + 1] : undefined;
  };
  const baseline = arg('--baseline');
  const builds = baseline ? [{ label: 'baseline', main: baseline }, { label: 'this build' }] : [{}];
  startupMemoryBench(builds, Number(arg('--runs') ?? RUNS)).catch((error) => {
    console.error(error);
    process.exit(1);
  });
}
