import { startInProcessPlatform } from './in-process-platform';
import { DistributorDirectory } from '@cip/distributors/service';
import { ConsumerHost } from '@cip/shared/infrastructure';
import { within } from '@cip/shared/testing';
import { UsersService } from '@cip/users/service';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { Worker } from 'node:worker_threads';
import { formatNumber, printFigures, type Figure } from './append-bench';

// Small enough that the held answers stay within the 10 s delivery time-out while the backlog builds.
const BACKLOG_EVENTS = 8_000;
const CREATORS = 200;
const STEADY_RATE_PER_S = 200;
const STEADY_SECONDS = 5;
const API_KEY = 'sk_sandbox_webhookBenchKeyAAAAAAAAAAAAAAAAAAAAAAA';

/**
 * The distributor's receiver, on its own thread (the platform keeps the main one): answers the handshake,
 * acknowledges every Event with 200, and records for each one when it arrived and how long after the
 * Event occurred (both on the same machine's clock).
 */
const RECEIVER = `
const { parentPort } = require('node:worker_threads');
const { createServer } = require('node:http');
let arrivals = [];
let holding = false;
const held = [];
const server = createServer({ keepAliveTimeout: 60000 }, (req, res) => {
  const chunks = [];
  req.on('data', (c) => chunks.push(c));
  req.on('end', () => {
    const body = JSON.parse(Buffer.concat(chunks).toString('utf8'));
    if (body.type === 'webhookSubscription.verification') {
      res.writeHead(200, { 'content-type': 'application/json' });
      return res.end(JSON.stringify({ challenge: body.challenge }));
    }
    const answer = () => {
      const now = Date.now();
      arrivals.push([body.eventName, now, now - Date.parse(body.createdAt)]);
      res.writeHead(200);
      res.end();
    };
    if (holding) held.push(answer); else answer();
  });
});
server.listen(0, '127.0.0.1', () => parentPort.postMessage({ port: server.address().port }));
parentPort.on('message', (message) => {
  if (message === 'take') { parentPort.postMessage({ arrivals }); arrivals = []; }
  if (message === 'hold') holding = true;
  if (message === 'release') { holding = false; held.splice(0).forEach((answer) => answer()); }
  if (message === 'stop') server.close(() => process.exit(0));
});
`;

type Arrival = [eventName: string, at: number, latencyMs: number];

export class Receiver {
  private constructor(
    private readonly worker: Worker,
    readonly url: string,
  ) {}

  static async start(): Promise<Receiver> {
    const worker = new Worker(RECEIVER, { eval: true });
    const { port } = await within(
      new Promise<{ port: number }>((resolve) => worker.once('message', resolve)),
      { what: 'the receiver worker to listen', timeoutMs: 10_000 },
    );
    return new Receiver(worker, `http://127.0.0.1:${port}/hooks`);
  }

  take(): Promise<Arrival[]> {
    const answer = within(
      new Promise<{ arrivals: Arrival[] }>((resolve) => this.worker.once('message', resolve)),
      { what: 'the receiver worker to hand over its arrivals', timeoutMs: 10_000 },
    );
    this.worker.postMessage('take');
    return answer.then((a) => a.arrivals.filter(([name]) => name === 'user.created'));
  }

  /**
   * Collects user.created deliveries until `count` came; fails, saying how many came, if they do not in time
   * (`partial`: returns those that came).
   */
  async collect(count: number, timeoutMs: number, partial = false): Promise<Arrival[]> {
    const all: Arrival[] = [];
    const deadline = Date.now() + timeoutMs;
    while (all.length < count && Date.now() < deadline) {
      all.push(...(await this.take()));
      if (all.length < count) await sleep(20);
    }
    if (all.length < count && !partial) {
      throw new Error(
        `Timed out after ${timeoutMs} ms waiting for ${count} webhook deliveries: ${all.length} arrived`,
      );
    }
    return all;
  }

  /** Holds the answers (a slow receiver) so a backlog builds up; `release` answers them and the rest. */
  hold(): void {
    this.worker.postMessage('hold');
  }

  release(): void {
    this.worker.postMessage('release');
  }

  stop(): Promise<number> {
    this.worker.postMessage('stop');
    return within(new Promise((resolve) => this.worker.once('exit', resolve)), {
      what: 'the receiver worker to exit',
      timeoutMs: 10_000,
    });
  }
}

export const percentile = (sorted: number[], p: number) =>
  sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))];

/**
 * Webhook deliveries to a local receiver, the whole path: user created -> event log -> public Event
 * recorder -> dispatcher -> signed HTTP POST. First a backlog: the receiver holds its answers while
 * 8,000 users are created, then answers; deliveries/s is the rate at which the backlog reaches it.
 * Then a steady trickle with no backlog, for the event-to-delivery latency.
 */
export async function webhooksDeliveryBench(): Promise<Figure[]> {
  console.log('\n== Webhook deliveries to a local receiver ==');
  const dataDir = mkdtempSync(join(tmpdir(), 'cip-bench-webhooks-'));
  const receiver = await Receiver.start();
  const platform = await startInProcessPlatform(dataDir, API_KEY);
  try {
    const subscribed = await fetch(`${platform.url}/v1/webhook-subscriptions`, {
      method: 'POST',
      headers: { 'x-api-key': API_KEY, 'content-type': 'application/json' },
      body: JSON.stringify({ url: receiver.url }),
    }).then((r) => r.json() as Promise<{ status: string }>);
    if (subscribed.status !== 'active')
      throw new Error(`subscription not verified: ${JSON.stringify(subscribed)}`);
    const principal = await platform.app.get(DistributorDirectory).authenticate(API_KEY);
    if (!principal) throw new Error('the bench API key does not authenticate');
    const users = platform.app.get(UsersService);
    let created = 0;
    const createUser = () =>
      users.createUser(
        { ...principal, requestId: 'bench' },
        {
          email: `bench-${created++}@example.com`,
          firstName: 'Ada',
          lastName: 'Lovelace',
          countryOfResidence: 'FR',
        },
      );

    // Warm-up: connections, prepared statements, JIT.
    await Promise.all(Array.from({ length: 500 }, createUser));
    await receiver.collect(500, 30_000);

    receiver.hold();
    const burstStarted = performance.now();
    let next = 0;
    await Promise.all(
      Array.from({ length: CREATORS }, async () => {
        while (next++ < BACKLOG_EVENTS) await createUser();
      }),
    );
    const createdIn = (performance.now() - burstStarted) / 1000;
    // Lets the dispatcher take the whole log in before the receiver answers again.
    await platform.app.get(ConsumerHost).drain('sandbox', undefined, 120_000);
    receiver.release();
    const burst = await receiver.collect(BACKLOG_EVENTS, 120_000);
    const times = burst.map(([, at]) => at).sort((a, b) => a - b);
    const spanS = (times[times.length - 1] - times[0]) / 1000;
    const perSecond = (burst.length - 1) / spanS;
    console.log(
      `  backlog: ${formatNumber(BACKLOG_EVENTS)} users created in ${formatNumber(createdIn)} s; ` +
        `${formatNumber(burst.length)} deliveries reached the receiver over ${formatNumber(spanS)} s`,
    );

    const steady: Promise<unknown>[] = [];
    for (let i = 0; i < STEADY_RATE_PER_S * STEADY_SECONDS; i++) {
      steady.push(createUser());
      await sleep(1000 / STEADY_RATE_PER_S);
    }
    await Promise.all(steady);
    const trickle = await receiver.collect(STEADY_RATE_PER_S * STEADY_SECONDS, 30_000);
    const latencies = trickle.map(([, , ms]) => ms).sort((a, b) => a - b);

    const figures: Figure[] = [
      {
        label: 'webhook deliveries/s, backlog to a local receiver',
        value: perSecond,
        unit: 'deliveries/s',
        target: { op: '>=', value: 2000 },
      },
      {
        label: 'event-to-delivery p50, no backlog (200 events/s)',
        value: percentile(latencies, 50),
        unit: 'ms',
      },
      {
        label: 'event-to-delivery p99, no backlog (200 events/s)',
        value: percentile(latencies, 99),
        unit: 'ms',
        target: { op: '<=', value: 100 },
      },
    ];
    printFigures(figures);
    return figures;
  } finally {
    await platform.close();
    await receiver.stop();
    rmSync(dataDir, { recursive: true, force: true });
  }
}
