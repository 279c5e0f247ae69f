import { startInProcessPlatform } from './in-process-platform';
import { CARDS_OPTIONS, type CardsModuleOptions } from '@cip/cards/service';
import { DistributorDirectory } from '@cip/distributors/service';
import { ConsumerHost, INFRASTRUCTURE, type Infrastructure } from '@cip/shared/infrastructure';
import { within } from '@cip/shared/testing';
import { UsersService } from '@cip/users/service';
import { randomUUID } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { Worker } from 'node:worker_threads';
import type { RunningPlatform } from '../../apps/platform/src/start-platform';
import { formatNumber, printFigures, type Figure } from './append-bench';

const API_KEY = 'sk_sandbox_threeDsBenchKeyAAAAAAAAAAAAAAAAAAAAAAAA';
const AREQ_RATE_PER_S = 500;
const AREQ_SECONDS = 6;
const BACKLOG_EVENTS = Number(process.env.THREE_DS_BENCH_BACKLOG ?? 10_000);
const EXPRESS_SAMPLES = 200;

/**
 * The load generator and the distributor's receiver, on a thread of their own (the platform keeps the main
 * one). `areqs`: posts AReqs at a fixed rate (open loop: a slow answer does not slow the sending) and
 * reports each one's AReq-to-ARes time. The receiver answers ordinary Events slowly once told to (a
 * backlog builds for the distributor) but answers `cardAuthentication.created` at once, recording when each
 * arrived; `challenge` posts one AReq and reports when it was sent and its authentication id. A slow
 * receiver (half a second per ordinary Event, within the delivery time-out, so the endpoint stays healthy)
 * keeps the backlog queued at the dispatcher while the challenges are measured.
 */
const WORKER = `
const { parentPort } = require('node:worker_threads');
const { createServer, Agent } = require('node:http');
const { randomUUID } = require('node:crypto');
const agent = new Agent({ keepAlive: true, maxSockets: 256 });
let holding = false;
const express = [];
const server = createServer({ keepAliveTimeout: 60000 }, (req, res) => {
  const chunks = [];
  req.on('data', (c) => chunks.push(c));
  req.on('end', () => {
    const body = JSON.parse(Buffer.concat(chunks).toString('utf8'));
    if (body.type === 'webhookSubscription.verification') {
      res.writeHead(200, { 'content-type': 'application/json' });
      return res.end(JSON.stringify({ challenge: body.challenge }));
    }
    if (body.eventName === 'cardAuthentication.created') {
      express.push([body.eventTargetId, Date.now()]);
      res.writeHead(200);
      return res.end();
    }
    const answer = () => { res.writeHead(200); res.end(); };
    if (holding) setTimeout(answer, 500); else answer();
  });
});
function post(url, message) {
  const started = performance.now();
  const sentAt = Date.now();
  return fetch(url, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({
    ...message, threeDSServerTransID: randomUUID(), dsTransID: randomUUID(),
  }) }).then((r) => r.json()).then((ares) => ({ ares, ms: performance.now() - started, sentAt }));
}
server.listen(0, '127.0.0.1', () => parentPort.postMessage({ port: server.address().port }));
parentPort.on('message', async (m) => {
  if (m.type === 'hold') holding = true;
  if (m.type === 'release') holding = false;
  if (m.type === 'express') { parentPort.postMessage({ express: express.splice(0) }); }
  if (m.type === 'challenge') {
    const { ares, sentAt } = await post(m.url, m.message);
    parentPort.postMessage({ challenge: { id: 'tds-' + ares.acsTransID, transStatus: ares.transStatus, sentAt } });
  }
  if (m.type === 'areqs') {
    const results = [];
    const pending = [];
    const interval = 1000 / m.rate;
    const start = performance.now();
    for (let i = 0; i < m.rate * m.seconds; i++) {
      const due = start + i * interval;
      const wait = due - performance.now();
      if (wait > 0) await new Promise((r) => setTimeout(r, wait));
      pending.push(post(m.url, m.message).then((r) => results.push([r.ms, r.ares.messageType, r.ares.transStatus])));
    }
    await Promise.all(pending);
    parentPort.postMessage({ areqs: results, seconds: (performance.now() - start) / 1000 });
  }
  if (m.type === 'stop') server.close(() => process.exit(0));
});
`;

type Reply =
  | { port: number }
  | { areqs: [ms: number, messageType: string, transStatus: string][]; seconds: number }
  | { express: [id: string, at: number][] }
  | { challenge: { id: string; transStatus: string; sentAt: number } };

class Driver {
  private constructor(private readonly worker: Worker) {}

  static async start(): Promise<{ driver: Driver; receiverUrl: string }> {
    const worker = new Worker(WORKER, { eval: true });
    const { port } = (await within(new Promise<Reply>((resolve) => worker.once('message', resolve)), {
      what: 'the bench worker to listen',
      timeoutMs: 10_000,
    })) as { port: number };
    return { driver: new Driver(worker), receiverUrl: `http://127.0.0.1:${port}/hooks` };
  }

  ask<T extends Reply>(message: object, timeoutMs = 120_000): Promise<T> {
    const answer = within(new Promise<T>((resolve) => this.worker.once('message', resolve)), {
      what: `the bench worker to answer ${JSON.stringify(message).slice(0, 40)}`,
      timeoutMs,
    });
    this.worker.postMessage(message);
    return answer;
  }

  tell(message: object): void {
    this.worker.postMessage(message);
  }

  stop(): Promise<number> {
    this.worker.postMessage({ type: 'stop' });
    return within(new Promise((resolve) => this.worker.once('exit', resolve)), {
      what: 'the bench worker to exit',
      timeoutMs: 10_000,
    });
  }
}

const percentile = (sorted: number[], p: number) =>
  sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))];

/** A sandbox card of an active user, and its PAN and expiry as the directory server would send them. */
async function benchCard(platform: RunningPlatform): Promise<{ pan: string; expiry: string }> {
  const call = async (method: string, path: string, body?: object) => {
    const response = await fetch(`${platform.url}${path}`, {
      method,
      headers: { 'x-api-key': API_KEY, 'content-type': 'application/json' },
      body: body && JSON.stringify(body),
    });
    return (await response.json()) as Record<string, unknown> & { items?: { id: string }[] };
  };
  const user = await call('POST', '/v1/users', {
    email: 'three-ds-bench@example.com',
    firstName: 'Ada',
    lastName: 'Lovelace',
    countryOfResidence: 'FR',
  });
  const kyc = await call('PUT', '/v1/kycs', { userId: user.id, type: 'full' });
  await call('POST', `/v1/simulate/kyc/${String(kyc.id)}/complete`, {});
  await call('POST', `/v1/simulate/kyc/${String(kyc.id)}/approve`, {});
  for (let i = 0; i < 500; i++) {
    const wallets = await call('GET', `/v1/wallets?userId=${String(user.id)}`);
    if (wallets.items?.length) break;
    await sleep(10);
  }
  const card = await call('POST', '/v1/cards', { userId: user.id, type: 'virtual' });
  const infrastructure = platform.app.get<Infrastructure>(INFRASTRUCTURE);
  const [created] = await infrastructure.scope('sandbox').eventStore.readStream(card.id as string);
  const vault = platform.app.get<CardsModuleOptions>(CARDS_OPTIONS).vault('sandbox');
  const secrets = await vault.revealForHostedPage((created.data as { vaultRef: string }).vaultRef);
  return {
    pan: secrets.pan,
    expiry: `${String(secrets.expYear).slice(-2)}${String(secrets.expMonth).padStart(2, '0')}`,
  };
}

/** An app-channel payment AReq the ACS challenges (decoupled): the heaviest answer, a challenge recorded. */
function challengeAReq(card: { pan: string; expiry: string }, dsURL: string) {
  return {
    messageType: 'AReq',
    messageVersion: '2.2.0',
    messageCategory: '01',
    deviceChannel: '01',
    dsURL,
    dsReferenceNumber: 'DS-BENCH',
    threeDSServerRefNumber: '3DSS-BENCH',
    threeDSServerURL: 'https://3ds-server.example/notify',
    threeDSRequestorID: 'REQ-BENCH',
    threeDSRequestorName: 'Bench Requestor',
    threeDSRequestorURL: 'https://merchant.example',
    threeDSRequestorAppURL: 'https://merchant.example/app',
    acctNumber: card.pan,
    cardExpiryDate: card.expiry,
    purchaseAmount: '4999',
    purchaseCurrency: '978',
    purchaseExponent: '2',
    purchaseDate: '20261123101500',
    acquirerBIN: '400001',
    acquirerMerchantID: 'MERCH1',
    merchantName: 'Bench Shop',
    mcc: '5999',
    merchantCountryCode: '250',
    threeDSRequestorDecReqInd: 'Y',
    sdkAppID: randomUUID(),
    sdkTransID: randomUUID(),
    sdkReferenceNumber: 'SDK',
    sdkMaxTimeout: '05',
    sdkEncData: 'bench',
    sdkEphemPubKey: { kty: 'EC' },
    deviceRenderOptions: { sdkInterface: '03' },
  };
}

/**
 * 3-D Secure (issue 13). AReq to ARes at 500 AReq/s, open loop, each a payment the ACS challenges (the card
 * looked up by PAN, the challenge recorded). Then `cardAuthentication.created` from AReq sent to webhook
 * delivered at a local receiver, while 10,000 ordinary Events of the same distributor are queued behind a
 * receiver that holds its answers to them: the express lane must not wait behind the backlog.
 */
export async function threeDsBench(): Promise<Figure[]> {
  console.log('\n== 3-D Secure: the ACS and the express webhook lane ==');
  const dataDir = mkdtempSync(join(tmpdir(), 'cip-bench-3ds-'));
  const { driver, receiverUrl } = await Driver.start();
  const platform = await startInProcessPlatform(dataDir, API_KEY);
  try {
    const acsUrl = `${platform.url}/3ds/acs/sandbox/areq`;
    const dsURL = `${platform.url}/simulator/3ds/ds/sandbox/rreq`;
    const card = await benchCard(platform);
    const message = challengeAReq(card, dsURL);

    // Warm-up, then the measured run.
    await driver.ask({ type: 'areqs', url: acsUrl, message, rate: 200, seconds: 2 });
    await platform.app.get(ConsumerHost).drain('sandbox', undefined, 60_000);
    const run = await driver.ask<{ areqs: [number, string, string][]; seconds: number }>({
      type: 'areqs',
      url: acsUrl,
      message,
      rate: AREQ_RATE_PER_S,
      seconds: AREQ_SECONDS,
    });
    const challenged = run.areqs.filter(([, type, status]) => type === 'ARes' && status === 'D').length;
    if (challenged !== run.areqs.length) {
      throw new Error(`${run.areqs.length - challenged} of ${run.areqs.length} AReqs were not challenged`);
    }
    const areqMs = run.areqs.map(([ms]) => ms).sort((a, b) => a - b);
    console.log(
      `  ${formatNumber(run.areqs.length)} AReqs in ${formatNumber(run.seconds)} s ` +
        `(${formatNumber(run.areqs.length / run.seconds)}/s), every one answered D`,
    );

    // The express lane behind a backlog of ordinary Events for the same distributor.
    const subscribed = await fetch(`${platform.url}/v1/webhook-subscriptions`, {
      method: 'POST',
      headers: { 'x-api-key': API_KEY, 'content-type': 'application/json' },
      body: JSON.stringify({ url: receiverUrl }),
    }).then((r) => r.json() as Promise<{ status: string }>);
    if (subscribed.status !== 'active')
      throw new Error(`subscription not verified: ${JSON.stringify(subscribed)}`);
    const principal = await platform.app.get(DistributorDirectory).authenticate(API_KEY);
    if (!principal) throw new Error('the bench API key does not authenticate');
    const users = platform.app.get(UsersService);
    driver.tell({ type: 'hold' });
    let next = 0;
    await Promise.all(
      Array.from({ length: 100 }, async () => {
        while (next < BACKLOG_EVENTS) {
          const n = next++;
          await users.createUser(
            { ...principal, requestId: 'bench' },
            {
              email: `backlog-${n}@example.com`,
              firstName: 'Ada',
              lastName: 'Lovelace',
              countryOfResidence: 'FR',
            },
          );
        }
      }),
    );
    await platform.app.get(ConsumerHost).drain('sandbox', undefined, 120_000);
    const sent = new Map<string, number>();
    for (let i = 0; i < EXPRESS_SAMPLES; i++) {
      const { challenge } = await driver.ask<{
        challenge: { id: string; transStatus: string; sentAt: number };
      }>({
        type: 'challenge',
        url: acsUrl,
        message,
      });
      sent.set(challenge.id, challenge.sentAt);
      await sleep(20);
    }
    const arrived = new Map<string, number>();
    for (let i = 0; i < 500 && arrived.size < EXPRESS_SAMPLES; i++) {
      const { express } = await driver.ask<{ express: [string, number][] }>({ type: 'express' });
      for (const [id, at] of express) if (sent.has(id)) arrived.set(id, at);
      if (arrived.size < EXPRESS_SAMPLES) await sleep(20);
    }
    driver.tell({ type: 'release' });
    if (arrived.size < EXPRESS_SAMPLES) {
      throw new Error(`${EXPRESS_SAMPLES - arrived.size} cardAuthentication.created never arrived`);
    }
    const expressMs = [...arrived].map(([id, at]) => at - (sent.get(id) as number)).sort((a, b) => a - b);

    const figures: Figure[] = [
      { label: '3DS AReq to ARes p50 (500 AReq/s, challenges)', value: percentile(areqMs, 50), unit: 'ms' },
      {
        label: '3DS AReq to ARes p99 (500 AReq/s, challenges)',
        value: percentile(areqMs, 99),
        unit: 'ms',
        target: { op: '<=', value: 20 },
      },
      {
        label: `cardAuthentication.created AReq to webhook p50 (${formatNumber(BACKLOG_EVENTS)} Events queued)`,
        value: percentile(expressMs, 50),
        unit: 'ms',
      },
      {
        label: `cardAuthentication.created AReq to webhook p99 (${formatNumber(BACKLOG_EVENTS)} Events queued)`,
        value: percentile(expressMs, 99),
        unit: 'ms',
        target: { op: '<=', value: 50 },
      },
    ];
    printFigures(figures);
    return figures;
  } finally {
    await platform.close();
    await driver.stop();
    rmSync(dataDir, { recursive: true, force: true });
  }
}

if (require.main === module) {
  threeDsBench().then(
    () => process.exit(0),
    (error: unknown) => {
      console.error(error);
      process.exit(1);
    },
  );
}
