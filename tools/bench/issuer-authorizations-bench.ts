import { systemClock } from '@cip/shared/runtime';
import { authorizationRequest, CardNetwork, type AcquirerTransaction } from '@cip/simulator/service';
import { existsSync } from 'node:fs';
import { setTimeout as sleep } from 'node:timers/promises';
import { formatNumber, printFigures, type Figure } from './append-bench';
import { BENCH_ACCEPTOR } from './bench-card';
import { activeUser, call, type ApiTarget } from './cards-http-bench';
import {
  platformCpuMs as cpuMs,
  spawnPlatform,
  stopPlatform,
  waitForHealth,
  type PlatformChild,
} from './startup-memory-bench';
import { postLoad, statusCodes, type AutocannonResult } from './users-http-bench';

const WALLETS = 64;
/** Authorizations the simulator keeps outstanding on the link (closed loop). */
const IN_FLIGHT = 256;
const HOT_SENDERS = 16;
/** A light load, for the decision latency itself rather than the queue in front of a saturated issuer. */
const LATENCY_IN_FLIGHT = 8;
const DURATION_S = 10;
const HOT_DURATION_S = 5;
const WARM_UP_S = 2;
const CONNECTIONS = 50;
/** USD cents per authorization: 12.50 USD, a USD wallet amount without FX or fees (the default program). */
const AMOUNT_CENTS = 1_250;
/** USD each wallet is funded with: far more than a run spends, so every decline would be a bug. */
const DEPOSIT_USD = 1_000_000;
/** Wallet minor units (6 decimals) per USD cent. */
const MINOR_PER_CENT = 10_000;

export interface BenchCard {
  cardId: string;
  walletId: string;
  pan: string;
  expMonth: number;
  expYear: number;
  cvv2: string;
  /** Approved USD cents, as the simulator saw the answers. */
  approvedCents: number;
}

const percentile = (sorted: number[], p: number) =>
  sorted.length ? sorted[Math.min(sorted.length - 1, Math.floor((sorted.length * p) / 100))] : NaN;

/**
 * A funded card as a cardholder gets it: an active user (hosted KYC), its wallet credited by a simulated
 * deposit, a virtual card issued by the vault, and its details read once from the single-use reveal page (the
 * bench holds no card number of its own).
 */
export async function fundedCard(platform: ApiTarget, i: number): Promise<BenchCard> {
  const userId = await activeUser(platform, i);
  const wallets = (await call(platform, 'GET', `/v1/wallets?userId=${userId}`)) as {
    items: { id: string }[];
  };
  const walletId = wallets.items[0].id;
  await call(platform, 'POST', '/v1/simulate/deposit', { walletId, amount: DEPOSIT_USD });
  const card = await call(platform, 'POST', '/v1/cards', { userId, type: 'virtual' });
  const link = await call(platform, 'POST', `/v1/cards/${String(card.id)}/reveal`);
  // The page's GET shows a button; its form's POST (to the same url) uses the link and shows the details.
  const revealed = await fetch(new URL(new URL(link.url as string).pathname, platform.url), {
    method: 'POST',
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
    body: '',
  });
  const page = await revealed.text();
  const pan = /<dd class="pan">(.*?)<\/dd>/.exec(page)?.[1].replace(/<[^>]+>/g, '');
  const expiry = /<dd>(\d{2})\/(\d{2})<\/dd>/.exec(page);
  const cvv2 = /<dt>CVV2<\/dt><dd>(\d{3,4})<\/dd>/.exec(page)?.[1];
  if (!pan || !expiry || !cvv2) throw new Error(`card ${String(card.id)}: no details on its reveal page`);
  return {
    cardId: card.id as string,
    walletId,
    pan,
    expMonth: Number(expiry[1]),
    expYear: 2000 + Number(expiry[2]),
    cvv2,
    approvedCents: 0,
  };
}

/**
 * The double-spend check, on the wallets the platform serves: each wallet's balance is still its deposit
 * (nothing cleared), and what is held (balance - available) equals what the simulator saw approved, never more
 * than the balance. The wallets read model trails the ledger a little: read until it stops moving.
 */
async function doubleSpends(
  platform: PlatformChild,
  cards: BenchCard[],
  approvedMinorOf: (card: BenchCard) => Promise<number> = async (card) => card.approvedCents * MINOR_PER_CENT,
): Promise<number> {
  let bad = 0;
  for (const card of cards) {
    let expectedHeld = NaN;
    let held = NaN;
    let balance = NaN;
    for (let attempt = 0; attempt < 100; attempt++) {
      // Both sides read again: a payment still being decided when the load stopped lands meanwhile.
      expectedHeld = await approvedMinorOf(card);
      const wallet = (await call(platform, 'GET', `/v1/wallets/${card.walletId}`)) as {
        balance: number;
        availableBalance: number;
      };
      held = Math.round((wallet.balance - wallet.availableBalance) * 1_000_000);
      balance = Math.round(wallet.balance * 1_000_000);
      if (held === expectedHeld) break;
      await sleep(50);
    }
    if (held !== expectedHeld || balance !== DEPOSIT_USD * 1_000_000 || held > balance) {
      bad++;
      console.log(
        `  MISMATCH wallet ${card.walletId}: held ${held}, approved ${expectedHeld}, balance ${balance}`,
      );
    }
  }
  return bad;
}

/**
 * The minor units of the card's confirmed authorizations as the platform lists them (GET /v1/authorizations):
 * over HTTP, autocannon drops the answers still in flight when a run ends, so the simulator's count falls short.
 */
async function approvedOnPlatform(platform: PlatformChild, card: BenchCard): Promise<number> {
  let total = 0;
  let after = '';
  for (;;) {
    const page = (await call(
      platform,
      'GET',
      `/v1/authorizations?cardId=${card.cardId}&limit=100&sortBy=createdAt${after ? `&startingAfter=${after}` : ''}`,
    )) as { items: { id: string; decision: string; amount: number }[]; hasMore: boolean };
    for (const item of page.items)
      if (item.decision === 'confirmed') total += Math.round(item.amount * 1_000_000);
    if (!page.hasMore || page.items.length === 0) return total;
    after = page.items[page.items.length - 1].id;
  }
}

/**
 * Waits until the platform is idle (under 10% of a core over a quarter second, at most 30 s): the read models
 * and the public Events of a previous run caught up, so that a run measures its own load only.
 */
async function quiesce(platform: PlatformChild): Promise<void> {
  await waitForIdle([platform.child.pid as number]);
}

/**
 * Waits until processes are idle together: under `idleMs` of CPU (all of them) over a quarter second, at
 * most `timeoutMs`. A process that exited counts for nothing.
 */
export async function waitForIdle(pids: number[], idleMs = 25, timeoutMs = 30_000): Promise<void> {
  const total = () => pids.reduce((sum, pid) => sum + (existsSync(`/proc/${pid}`) ? cpuMs(pid) : 0), 0);
  for (let i = 0; i < timeoutMs / 250; i++) {
    const before = total();
    await sleep(250);
    if (total() - before < idleMs) return;
  }
}

/** The sandbox event store's group-commit counters, from the platform's /metrics. */
async function commitCounters(platform: PlatformChild) {
  const text = await (await fetch(`${platform.url}/metrics`)).text();
  const value = (name: string) =>
    Number(new RegExp(`^${name}\\{store="sqlite:sandbox"\\} (\\S+)$`, 'm').exec(text)?.[1] ?? NaN);
  return {
    commits: value('event_store_group_commit_appends_count'),
    appends: value('event_store_group_commit_appends_sum'),
    waitedSeconds: value('event_store_append_duration_seconds_sum'),
  };
}

interface LinkRun {
  rate: number;
  latencies: number[];
  approved: number;
  declined: number;
  standIns: number;
  cpuPerAuthMs: number;
  /** Durable commits of the sandbox event store during the run, appends per commit, mean wait of an append. */
  commits: { perSecond: number; appendsEach: number; waitMs: number };
}

/**
 * `senders` loops, each sending 0100s through the simulator's CardNetwork (as `POST /v1/simulate/authorization`
 * does) and awaiting the 0110, for `seconds`; the n-th of all goes to `cardFor(n)`. Timed at the simulator,
 * 0100 sent to 0110 received.
 */
async function linkRun(
  network: CardNetwork,
  platform: PlatformChild,
  senders: number,
  seconds: number,
  cardFor: (n: number) => BenchCard,
): Promise<LinkRun> {
  const run: LinkRun = {
    rate: 0,
    latencies: [],
    approved: 0,
    declined: 0,
    standIns: 0,
    cpuPerAuthMs: 0,
    commits: { perSecond: 0, appendsEach: 0, waitMs: 0 },
  };
  await quiesce(platform);
  const pid = platform.child.pid as number;
  const countersBefore = await commitCounters(platform);
  const cpuBefore = cpuMs(pid);
  let n = 0;
  const started = performance.now();
  const until = started + seconds * 1000;
  await Promise.all(
    Array.from({ length: senders }, async () => {
      while (performance.now() < until) {
        const card = cardFor(n++);
        const at = new Date();
        const tx: AcquirerTransaction = {
          acquirerId: '400001',
          acquirerCountry: '840',
          ...network.nextReferences(at),
          processingCode: '000000',
          amountMinor: AMOUNT_CENTS,
          currencyNumeric: '840',
          acceptor: BENCH_ACCEPTOR,
          entryMode: 'ecommerce',
          at,
        };
        const request = authorizationRequest(tx, card);
        const sent = performance.now();
        const answer = await network.authorize(request);
        run.latencies.push(performance.now() - sent);
        if (answer.standIn) run.standIns++;
        if (answer.responseCode === '00') {
          run.approved++;
          card.approvedCents += AMOUNT_CENTS;
        } else run.declined++;
      }
    }),
  );
  const elapsed = (performance.now() - started) / 1000;
  run.rate = run.latencies.length / elapsed;
  run.cpuPerAuthMs = (cpuMs(pid) - cpuBefore) / Math.max(1, run.latencies.length);
  const counters = await commitCounters(platform);
  const commits = counters.commits - countersBefore.commits;
  const appends = counters.appends - countersBefore.appends;
  run.commits = {
    perSecond: commits / elapsed,
    appendsEach: appends / Math.max(1, commits),
    waitMs: ((counters.waitedSeconds - countersBefore.waitedSeconds) / Math.max(1, appends)) * 1000,
  };
  run.latencies.sort((a, b) => a - b);
  return run;
}

function linkFigures(name: string, run: LinkRun, targets: boolean): Figure[] {
  console.log(
    `  ${name}: ${run.latencies.length.toLocaleString('en-US')} authorizations, ${run.approved} approved, ` +
      `${run.declined} declined, ${run.standIns} stood in; ${formatNumber(run.commits.perSecond)} durable ` +
      `commits/s of ${formatNumber(run.commits.appendsEach)} appends each, an append waiting ` +
      `${formatNumber(run.commits.waitMs)} ms on average`,
  );
  return [
    {
      label: `${name}: authorizations/s`,
      value: run.rate,
      unit: 'auths/s',
      ...(targets ? { target: { op: '>=' as const, value: 10_000 } } : {}),
    },
    { label: `${name}: decision p50 at the simulator`, value: percentile(run.latencies, 50), unit: 'ms' },
    {
      label: `${name}: decision p99 at the simulator`,
      value: percentile(run.latencies, 99),
      unit: 'ms',
      ...(targets ? { target: { op: '<=' as const, value: 5 } } : {}),
    },
    { label: `${name}: platform CPU per authorization`, value: run.cpuPerAuthMs, unit: 'ms' },
    { label: `${name}: declines and stand-ins`, value: run.declined + run.standIns, unit: 'auths' },
  ];
}

/**
 * The ISO 8583 link to the real issuer: the simulator's card network runs in this process and the platform
 * (built, in a child process, as `npm start` runs it) links its issuer to it (CARD_NETWORK_ISO_ADDRESS), so
 * simulator and platform each have a process on the machine. 64 funded wallets with a card each; the
 * simulator keeps IN_FLIGHT 0100s outstanding round robin over them; then one hot wallet with 16 senders.
 */
async function isoPhase(options: BenchOptions, name: string): Promise<Figure[]> {
  const network = new CardNetwork({
    clock: systemClock,
    // Long enough that the network never stands in during the run: every answer is the issuer's.
    standInTimeoutMs: 30_000,
    standIn: { limitMinor: 0 },
    link: { echoIdleMs: 0, maxInFlight: 4_096 },
  });
  const address = await network.listen();
  const platform = await spawnPlatform({
    logLevel: 'warn',
    main: options.main,
    env: { CARD_NETWORK_ISO_ADDRESS: address },
    nodeArgs: options.profileDir ? ['--cpu-prof', `--cpu-prof-dir=${options.profileDir}`] : [],
  });
  try {
    await waitForHealth(platform);
    for (let i = 0; i < 200 && !network.issuerConnected; i++) await sleep(50);
    if (!network.issuerConnected) throw new Error(`the issuer did not link:\n${platform.output()}`);
    const cards: BenchCard[] = [];
    for (let i = 0; i < WALLETS + 1; i++) cards.push(await fundedCard(platform, i));
    const [hot, ...spread] = cards;
    console.log(
      `  ${WALLETS} funded wallets with a card each, and a hot one; ${IN_FLIGHT} 0100s in flight over loopback`,
    );
    await linkRun(network, platform, IN_FLIGHT, WARM_UP_S, (n) => spread[n % WALLETS]);
    const figures = [
      ...linkFigures(
        `${name} ISO link, ${WALLETS} wallets, ${IN_FLIGHT} in flight`,
        await linkRun(network, platform, IN_FLIGHT, DURATION_S, (n) => spread[n % WALLETS]),
        true,
      ),
      ...linkFigures(
        `${name} ISO link, ${WALLETS} wallets, ${LATENCY_IN_FLIGHT} in flight`,
        await linkRun(network, platform, LATENCY_IN_FLIGHT, HOT_DURATION_S, (n) => spread[n % WALLETS]),
        false,
      ),
      ...linkFigures(
        `${name} ISO link, one hot wallet, ${HOT_SENDERS} senders`,
        await linkRun(network, platform, HOT_SENDERS, HOT_DURATION_S, () => hot),
        false,
      ),
    ];
    figures.push({
      label: `${name} ISO link: double spends (wallets whose holds differ from the approvals)`,
      value: await doubleSpends(platform, cards),
      unit: 'wallets',
      target: { op: '<=', value: 0 },
    });
    return figures;
  } finally {
    await stopPlatform(platform);
    await network.close();
  }
}

/**
 * `connections` clients POSTing /v1/simulate/authorization for `seconds`, round robin over `cards`: the sandbox
 * card network sends each 0100 to the issuer over ISO 8583 and the 0110's decision is the answer.
 */
export function simulateAuthorizations(
  platform: ApiTarget,
  cards: BenchCard[],
  connections: number,
  seconds: number,
): Promise<AutocannonResult> {
  let next = 0;
  return postLoad(platform, '/v1/simulate/authorization', connections, seconds, () => ({
    cardId: cards[next++ % cards.length].cardId,
    amount: AMOUNT_CENTS / 100,
    merchant: {
      name: BENCH_ACCEPTOR.name,
      city: BENCH_ACCEPTOR.city,
      country: 'FR',
      mcc: BENCH_ACCEPTOR.mcc,
    },
  }));
}

/** POST /v1/simulate/authorization at 50 connections on the embedded platform (simulator in its process). */
async function httpPhase(options: BenchOptions, name: string): Promise<Figure[]> {
  const platform = await spawnPlatform({
    logLevel: 'warn',
    main: options.main,
    nodeArgs: options.profileDir ? ['--cpu-prof', `--cpu-prof-dir=${options.profileDir}`] : [],
  });
  try {
    await waitForHealth(platform);
    const cards: BenchCard[] = [];
    for (let i = 0; i < WALLETS; i++) cards.push(await fundedCard(platform, i));
    const load = (seconds: number) => simulateAuthorizations(platform, cards, CONNECTIONS, seconds);
    await load(WARM_UP_S);
    await quiesce(platform);
    const pid = platform.child.pid as number;
    const cpuBefore = cpuMs(pid);
    const result = await load(DURATION_S);
    const label = `${name} POST /v1/simulate/authorization, ${CONNECTIONS} connections`;
    console.log(
      `  ${label}: ${result.requests.total.toLocaleString('en-US')} requests (${statusCodes(result)})`,
    );
    return [
      {
        label: `${label}: throughput`,
        value: result.requests.average,
        unit: 'req/s',
        target: { op: '>=', value: 2_000 },
      },
      { label: `${label}: p50`, value: result.latency.p50, unit: 'ms' },
      { label: `${label}: p99`, value: result.latency.p99, unit: 'ms', target: { op: '<=', value: 50 } },
      {
        label: `${label}: platform CPU per request`,
        value: (cpuMs(pid) - cpuBefore) / Math.max(1, result.requests.total),
        unit: 'ms',
      },
      { label: `${label}: non-2xx`, value: result.non2xx, unit: 'responses' },
      {
        label: `${name} HTTP: double spends (wallets whose holds differ from the approvals)`,
        value: await doubleSpends(platform, cards, (card) => approvedOnPlatform(platform, card)),
        unit: 'wallets',
        target: { op: '<=', value: 0 },
      },
    ];
  } finally {
    await stopPlatform(platform);
  }
}

interface BenchOptions {
  /** Another build's dist/apps/platform/src/main.js (a baseline); this build's by default. */
  main?: string;
  label?: string;
  /** Write the platform's CPU profiles (node --cpu-prof, one per phase) here. */
  profileDir?: string;
  phases?: ('iso' | 'http')[];
}

/**
 * Card authorizations decided by the platform's real issuer (authorizations context: card lookup, user
 * status, CVV2 check in the vault, controls, the hold on the wallet ledger, the decision recorded), driven by
 * the sandbox card network: over the ISO 8583 link, and over HTTP through the simulate endpoint.
 */
export async function issuerAuthorizationsBench(options: BenchOptions = {}): Promise<Figure[]> {
  const name = options.label ? `issuer (${options.label})` : 'issuer';
  console.log(
    `\n== Card authorizations decided by the platform's issuer${options.label ? ` (${options.label})` : ''} ==`,
  );
  const phases = options.phases ?? ['iso', 'http'];
  const figures: Figure[] = [];
  if (phases.includes('iso')) figures.push(...(await isoPhase(options, name)));
  if (phases.includes('http')) figures.push(...(await httpPhase(options, name)));
  printFigures(figures);
  console.log(`  (${formatNumber(DURATION_S)} s runs; a shared 2-core machine: compare builds side by side)`);
  return figures;
}

// `node dist/tools/bench/issuer-authorizations-bench.js [--baseline <another build's main.js>] [--only iso|http]
// [--cpu-prof <dir>]`: with a baseline, both builds are measured one after the other, in the same run.
if (require.main === module) {
  const arg = (flag: string) => {
    const at = process.argv.indexOf(flag);
    return at > 0 ? process.argv[at + 1] : undefined;
  };
  const baseline = arg('--baseline');
  const only = arg('--only') as 'iso' | 'http' | undefined;
  const phases = only ? [only] : undefined;
  const profileDir = arg('--cpu-prof');
  (async () => {
    if (baseline) await issuerAuthorizationsBench({ main: baseline, label: 'baseline', phases });
    await issuerAuthorizationsBench({ label: baseline ? 'this build' : undefined, phases, profileDir });
    process.exit(0);
  })().catch((error) => {
    console.error(error);
    process.exit(1);
  });
}
