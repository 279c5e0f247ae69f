import { readFileSync } from 'node:fs';
import { formatNumber, printFigures, type Figure } from './append-bench';
import { spawnPlatform, stopPlatform, waitForHealth, type PlatformChild } from './startup-memory-bench';
import { postLoad, reportMeasuredRun, statusCodes, type AutocannonResult } from './users-http-bench';

const CONNECTIONS = 50;
const WARM_UP_S = 2;
const DURATION_S = 10;
const LOG_LEVEL = 'warn';
/** Cards are spread over this many active users (each with its wallet), round robin. */
const USERS = 50;

/**
 * CPU time the platform process has used (user + system, ms): per request, a figure other processes on a
 * shared machine disturb far less than throughput or latency.
 */
function cpuMs(pid: number): number {
  const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1].split(' ');
  // utime and stime, fields 14 and 15 of stat (11 and 12 after the command name), in clock ticks of 10 ms.
  return (Number(fields[11]) + Number(fields[12])) * 10;
}

/** What the helpers below need of a platform: its base url and its sandbox API key (one process or split). */
export type ApiTarget = Pick<PlatformChild, 'url' | 'apiKey'>;

export async function call(platform: ApiTarget, method: string, path: string, body?: object) {
  const response = await fetch(`${platform.url}${path}`, {
    method,
    headers: { 'x-api-key': platform.apiKey, 'content-type': 'application/json' },
    body: body ? JSON.stringify(body) : undefined,
  });
  const json = (await response.json()) as Record<string, unknown>;
  if (response.status >= 300)
    throw new Error(`${method} ${path}: ${response.status} ${JSON.stringify(json)}`);
  return json;
}

/** An active user with a provisioned wallet, through the sandbox's own flow (hosted KYC, simulated review). */
export async function activeUser(platform: ApiTarget, i: number): Promise<string> {
  const user = await call(platform, 'POST', '/v1/users', {
    email: `cards-bench-${i}@example.com`,
    firstName: 'Ada',
    lastName: 'Lovelace',
    countryOfResidence: 'FR',
  });
  const kyc = await call(platform, 'PUT', '/v1/kycs', { userId: user.id, type: 'full' });
  await call(platform, 'POST', `/v1/simulate/kyc/${kyc.id}/complete`, {});
  await call(platform, 'POST', `/v1/simulate/kyc/${kyc.id}/approve`, {});
  // The wallet is provisioned by a saga; listing waits for the read model, so this sees it once there.
  for (let attempt = 0; attempt < 200; attempt++) {
    const wallets = (await call(platform, 'GET', `/v1/wallets?userId=${user.id}`)) as {
      items: { status: string }[];
    };
    if (wallets.items[0]?.status === 'active') return user.id as string;
  }
  throw new Error(`user ${String(user.id)} got no active wallet`);
}

function load(platform: PlatformChild, userIds: string[], seconds: number): Promise<AutocannonResult> {
  let next = 0;
  return postLoad(platform, '/v1/cards', CONNECTIONS, seconds, () => ({
    userId: userIds[next++ % userIds.length],
    type: 'virtual',
  }));
}

/**
 * POST /v1/cards over HTTP at 50 connections against the built platform in a child process: each creation
 * checks the user and its wallet, draws and seals a PAN in the vault (durable before the 201), and appends
 * the card's first event. `main` runs another build instead (a baseline, for a before/after comparison).
 */
export async function cardsHttpBench(options: { main?: string; label?: string } = {}): Promise<Figure[]> {
  const name = options.label ? `POST /v1/cards (${options.label})` : 'POST /v1/cards';
  console.log(`\n== ${name} over HTTP (platform in a child process) ==`);
  const platform = await spawnPlatform({ logLevel: LOG_LEVEL, main: options.main });
  try {
    const startup = await waitForHealth(platform);
    const userIds: string[] = [];
    for (let i = 0; i < USERS; i++) userIds.push(await activeUser(platform, i));
    console.log(
      `  platform healthy ${formatNumber(startup)} ms after spawn; LOG_LEVEL=${LOG_LEVEL}, fresh DATA_DIR; ` +
        `${USERS} active users with wallets; autocannon ${CONNECTIONS} connections, virtual cards round robin`,
    );
    const warmUp = await load(platform, userIds, WARM_UP_S);
    console.log(
      `  warm-up ${WARM_UP_S} s: ${warmUp.requests.total.toLocaleString('en-US')} requests (${statusCodes(warmUp)})`,
    );
    const pid = platform.child.pid as number;
    const cpuBefore = cpuMs(pid);
    const result = await load(platform, userIds, DURATION_S);
    const cpuPerRequest = (cpuMs(pid) - cpuBefore) / Math.max(1, result.requests.total);
    reportMeasuredRun(platform, DURATION_S, result);
    const figures: Figure[] = [
      {
        label: `${name} throughput (average)`,
        value: result.requests.average,
        unit: 'req/s',
        target: { op: '>=', value: 1_000 },
      },
      { label: `${name} latency p50`, value: result.latency.p50, unit: 'ms' },
      {
        label: `${name} latency p99`,
        value: result.latency.p99,
        unit: 'ms',
        target: { op: '<=', value: 80 },
      },
      { label: `${name} platform CPU per request`, value: cpuPerRequest, unit: 'ms' },
      { label: `${name} non-2xx responses`, value: result.non2xx, unit: 'responses' },
    ];
    printFigures(figures);
    return figures;
  } finally {
    await stopPlatform(platform);
  }
}

// `node dist/tools/bench/cards-http-bench.js [--baseline <another build's dist/apps/platform/src/main.js>]`:
// with a baseline, both builds are measured one after the other, in the same run.
if (require.main === module) {
  const at = process.argv.indexOf('--baseline');
  const baseline = at > 0 ? process.argv[at + 1] : undefined;
  (async () => {
    if (baseline) await cardsHttpBench({ main: baseline, label: 'baseline' });
    await cardsHttpBench(baseline ? { label: 'this build' } : {});
  })().catch((error) => {
    console.error(error);
    process.exit(1);
  });
}
