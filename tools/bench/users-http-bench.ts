import { createRequire } from 'node:module';
import { formatNumber, printFigures, type Figure } from './append-bench';
import { spawnPlatform, stopPlatform, waitForHealth, type PlatformChild } from './startup-memory-bench';

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

function load(url: string, apiKey: string, seconds: number): Promise<AutocannonResult> {
  return autocannon({
    url,
    connections: CONNECTIONS,
    duration: seconds,
    method: 'POST',
    headers: { 'x-api-key': apiKey, 'content-type': 'application/json' },
    requests: [
      {
        method: 'POST',
        path: '/v1/users',
        setupRequest: (request) => {
          request.body = JSON.stringify({
            email: `bench-${++emails}@example.com`,
            firstName: 'Ada',
            lastName: 'Lovelace',
            countryOfResidence: 'FR',
          });
          return request;
        },
      },
    ],
  });
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

export async function usersHttpBench(): Promise<Figure[]> {
  console.log('\n== POST /v1/users over HTTP (platform in a child process) ==');
  const platform = await spawnPlatform({ logLevel: LOG_LEVEL });
  try {
    const startup = await waitForHealth(platform);
    console.log(
      `  platform healthy ${formatNumber(startup)} ms after spawn; LOG_LEVEL=${LOG_LEVEL}, ` +
        `RATE_LIMIT_PER_SECOND=1000000, fresh DATA_DIR; autocannon ${CONNECTIONS} connections, unique email per request`,
    );
    const warmUp = await load(platform.url, platform.apiKey, WARM_UP_S);
    console.log(
      `  warm-up ${WARM_UP_S} s: ${warmUp.requests.total.toLocaleString('en-US')} requests (${statusCodes(warmUp)})`,
    );
    const result = await load(platform.url, platform.apiKey, DURATION_S);
    reportMeasuredRun(platform, DURATION_S, result);
    const figures: Figure[] = [
      {
        label: 'POST /v1/users throughput (average)',
        value: result.requests.average,
        unit: 'req/s',
        target: { op: '>=', value: 2_000 },
      },
      { label: 'POST /v1/users latency p50', value: result.latency.p50, unit: 'ms' },
      {
        label: 'POST /v1/users latency p99',
        value: result.latency.p99,
        unit: 'ms',
        target: { op: '<=', value: 50 },
      },
      { label: 'POST /v1/users non-2xx responses', value: result.non2xx, unit: 'responses' },
      {
        label: 'POST /v1/users errors (connection errors and timeouts)',
        value: result.errors,
        unit: 'errors',
      },
    ];
    printFigures(figures);
    return figures;
  } finally {
    await stopPlatform(platform);
  }
}

if (require.main === module) {
  usersHttpBench().catch((error) => {
    console.error(error);
    process.exit(1);
  });
}
