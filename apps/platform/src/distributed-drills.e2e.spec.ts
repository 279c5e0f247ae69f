import { PLATFORM_PERSONAL_DATA, READ_MODELS } from '@cip/platform/registry';
import { SplitProcess, SplitTopology, startSplitTopology } from '@cip/platform/topologies';
import { newPersonalDataMasterKey } from '@cip/shared/eventing';
import { verifyProjections } from '@cip/shared/infrastructure';
import { openPostgresInfrastructure, readPostgresConfig } from '@cip/shared/infrastructure/postgres';
import { deadline, freshDatabase, waitFor, WebhookReceiver } from '@cip/shared/testing';
import { execFile, execFileSync } from 'node:child_process';
import { chmodSync, existsSync, mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { promisify } from 'node:util';
import { jsonCaller } from './testing/kill-nine';
import { fundedWallets, holdsInStore, identityOf } from './testing/ledger-identity';

// Failure drills on the PostgreSQL + Kafka split topology (STORE_DRIVER=postgres: every service its own
// process, the relay producing the log to Kafka): kill -9 of a service, of the Kafka broker, of the relay, and
// an immediate PostgreSQL restart, each in the middle of an authorization storm and other writes. The spec runs
// its own PostgreSQL cluster and Kafka broker (tools/ci/postgres.sh, tools/ci/kafka.sh) in a temporary
// directory: its kills never reach the servers the other suites share.

const ROOT = resolve(__dirname, '..', '..', '..');
const KEY = 'sk_sandbox_drillsKeyFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFF';
const TITLE = 'failure drills on the PostgreSQL + Kafka split topology';
const WALLETS = 3;
const CARDS_PER_WALLET = 2;
const DEPOSIT_USD = 100_000;
const AUTHORIZATION_SENDERS = 10;
const USER_SENDERS = 2;
/** Answers before the kill: the storm is well under way. */
const KILL_AFTER = 60;
/** Writes sent while the component is down, before it is started again. */
const OUTAGE_WRITES = 30;
/** A request the kill left hanging gives up after this (a failed write: fine). */
const REQUEST_TIMEOUT_MS = 30_000;
/** The decision timeout the platform runs with here: the unrecorded-hold sweep releases a hold 1 s old. */
const DECISION_TIMEOUT_MS = 1000;

const run = promisify(execFile);

/** The newest PostgreSQL's bin directory, as tools/ci/postgres.sh picks it (Debian's layout). */
function postgresBin(): string | undefined {
  const root = '/usr/lib/postgresql';
  if (!existsSync(root)) return undefined;
  const versions = readdirSync(root)
    .filter((version) => existsSync(join(root, version, 'bin', 'pg_ctl')))
    .sort((a, b) => Number(a) - Number(b));
  return versions.length ? join(root, versions[versions.length - 1], 'bin') : undefined;
}

function onPath(command: string): boolean {
  try {
    execFileSync('sh', ['-c', `command -v ${command}`], { stdio: 'ignore' });
    return true;
  } catch {
    return false;
  }
}

/** Why the drills cannot run on this machine (outside CI, where they must), or undefined. */
function missingPrerequisite(): string | undefined {
  if (!onPath('java')) return '`java` is not on PATH (tools/ci/kafka.sh runs the Kafka broker on Java 17)';
  if (!postgresBin()) return 'no PostgreSQL binaries under /usr/lib/postgresql/*/bin (tools/ci/postgres.sh)';
  return undefined;
}

/** Runs a tools/ci script; the value of `NAME=value` on its last line when `variable` is given. */
async function ciScript(script: string, args: string[], variable?: string): Promise<string> {
  const { stdout } = await run('bash', [join(ROOT, 'tools/ci', script), ...args], {
    cwd: ROOT,
    timeout: 240_000,
    maxBuffer: 16 * 1024 * 1024,
  });
  if (!variable) return '';
  const line = stdout.trim().split('\n').pop() ?? '';
  if (!line.startsWith(`${variable}=`))
    throw new Error(`${script} ${args.join(' ')} printed no ${variable}:\n${stdout}`);
  return line.slice(variable.length + 1);
}

/** `pg_ctl restart -m immediate` of the cluster in `dir` (as the postgres user when root, as the script runs it). */
async function restartPostgresImmediately(dir: string): Promise<void> {
  const pgCtl = join(postgresBin()!, 'pg_ctl');
  const args = [
    '-D',
    join(dir, 'data'),
    '-l',
    join(dir, 'server.log'),
    '-m',
    'immediate',
    '-w',
    '-t',
    '60',
    'restart',
  ];
  if (process.getuid?.() === 0)
    await run('runuser', ['-u', 'postgres', '--', pgCtl, ...args], { timeout: 90_000 });
  else await run(pgCtl, args, { timeout: 90_000 });
}

type Call = ReturnType<typeof jsonCaller>;

/** The message of an error answer, without its request id: failures counted by reason. */
const errorMessage = (body: Record<string, unknown>) =>
  String((body.error as { message?: string } | undefined)?.message ?? JSON.stringify(body).slice(0, 200));

/** What a drill measured: the writes in flight at the kill, and how long until the platform was whole again. */
interface DrillReport {
  drill: string;
  inFlightAtKill: number;
  answeredBeforeKill: number;
  failedWrites: number;
  /** The failed writes by reason, before and after the kill. */
  failures: Record<string, number>;
  /** From the kill to the component answering its /health again (restarted). */
  restartMs: number;
  /** From the kill to every check passing (every process healthy, every read model and ledger caught up). */
  recoveryMs: number;
}

const describeDrills = (body: () => void) => {
  const missing = missingPrerequisite();
  if (missing && process.env.CI !== 'true') {
    process.stdout.write(`SKIP ${TITLE}: skipped because ${missing}\n`);
    const skipped = describe.skip;
    skipped(`${TITLE} (${missing})`, () => {
      it('runs when Java and PostgreSQL are installed', () => undefined);
    });
    return;
  }
  describe(TITLE, body);
};

describeDrills(() => {
  const baseDir = mkdtempSync(join(tmpdir(), 'cip-drills-'));
  const pgDir = join(baseDir, 'postgres');
  const kafkaDir = join(baseDir, 'kafka');
  const dataDir = join(baseDir, 'platform');
  const receiver = new WebhookReceiver();
  let topology: SplitTopology | undefined;
  let pgStarted = false;
  let kafkaStarted = false;
  const reports: DrillReport[] = [];
  /** Processes that exited while nobody stopped them (a drill's own kill is not one). */
  const unexpectedExits: string[] = [];

  afterAll(async () => {
    await topology?.close();
    await receiver.stop();
    if (kafkaStarted) await ciScript('kafka.sh', ['stop', kafkaDir]).catch(() => undefined);
    if (pgStarted) await ciScript('postgres.sh', ['stop', pgDir]).catch(() => undefined);
    rmSync(baseDir, { recursive: true, force: true });
    if (reports.length) process.stdout.write(`distributed drills:\n${JSON.stringify(reports, null, 2)}\n`);
  }, 120_000);

  const startedAt = performance.now();
  /** Where the time goes, on the test output. */
  const phase = (what: string) =>
    process.stdout.write(`drills +${Math.round((performance.now() - startedAt) / 1000)} s: ${what}\n`);

  it('after each drill every acknowledged write is there, every wallet holds what its confirmed authorizations hold, every Event reached the webhook, and the read models equal a rebuild from the log', async () => {
    // The postgres user (initdb, pg_ctl) must reach its directory inside ours.
    chmodSync(baseDir, 0o755);
    const [serverUrl, kafkaBrokers] = await Promise.all([
      ciScript('postgres.sh', ['start', pgDir], 'DATABASE_URL').then((url) => ((pgStarted = true), url)),
      ciScript('kafka.sh', ['start', kafkaDir], 'KAFKA_BROKERS').then(
        (brokers) => ((kafkaStarted = true), brokers),
      ),
    ]);
    phase('PostgreSQL and Kafka started');
    const database = await freshDatabase(serverUrl, 'cip_drills');
    const engines: NodeJS.ProcessEnv = {
      STORE_DRIVER: 'postgres',
      DATABASE_URL: database.url,
      KAFKA_BROKERS: kafkaBrokers,
      KAFKA_TOPIC_PREFIX: 'drills.',
      KAFKA_PARTITIONS: '2',
      // Twelve processes, a pool per scope each: well under the cluster's max_connections (100).
      DATABASE_POOL_SIZE: '1',
      PERSONAL_DATA_MASTER_KEY: newPersonalDataMasterKey(),
    };
    await receiver.start();
    topology = await startSplitTopology({
      dataDir,
      driver: 'postgres',
      ports: 'free',
      sandboxKey: KEY,
      startTimeoutMs: 150_000,
      env: {
        ...engines,
        LOG_LEVEL: 'warn',
        RATE_LIMIT_PER_SECOND: '1000000',
        RATE_LIMIT_BURST: '1000000',
        WEBHOOK_ALLOW_PRIVATE_URLS: 'true',
        SETTLEMENT_INTERVAL_MS: '0',
        AUTHORIZATION_HOLD_DECISION_TIMEOUT_MS: String(DECISION_TIMEOUT_MS),
      },
      onExit: (exited, code, signal) => {
        const { name, logFile } = exited;
        unexpectedExits.push(`${name} (${code ?? signal})`);
        // What it wrote last (kept in memory by the launcher: the log file's stream may not have flushed).
        const output = (exited as { output?(): string }).output?.();
        const tail = output || (existsSync(logFile) ? readFileSync(logFile, 'utf8').slice(-3_000) : '');
        process.stdout.write(`drills: ${name} exited (${code ?? signal}) on its own:\n${tail}\n`);
      },
    });
    phase('topology started');
    const processes = topology.services as (SplitProcess & { running?: boolean })[];
    const named = (name: string) => {
      const found = processes.find((p) => p.name === name);
      if (!found) throw new Error(`no process named ${name} in the split topology`);
      return found;
    };
    const call: Call = jsonCaller(topology.gatewayUrl, KEY);
    const timed = (method: string, path: string, body?: unknown) =>
      fetch(`${topology!.gatewayUrl}${path}`, {
        method,
        headers: { 'x-api-key': KEY, 'content-type': 'application/json' },
        body: body === undefined ? undefined : JSON.stringify(body),
        signal: AbortSignal.timeout(REQUEST_TIMEOUT_MS),
      }).then(async (response) => ({
        status: response.status,
        body: (await response.json()) as Record<string, unknown>,
      }));

    const subscription = await call('POST', '/v1/webhook-subscriptions', { url: receiver.url });
    expect(subscription).toMatchObject({ status: 201, body: { status: 'active' } });
    const subscriptionId = subscription.body.id as string;
    const wallets = await fundedWallets(call, 'drills', WALLETS, CARDS_PER_WALLET, DEPOSIT_USD);
    phase('cardholders funded');
    const cards = wallets.flatMap(({ cardIds }) => cardIds);
    /** Every acknowledged write: the authorizations answered 200 (with their status), the users answered 201. */
    const acknowledgedAuthorizations = new Map<string, string>();
    const acknowledgedUsers = new Set<string>();
    /** Writes refused with a 4xx: none should be (a failure during a kill is a 5xx or no answer). */
    const refused: string[] = [];
    let sent = 0;

    /**
     * Writes from several senders until KILL_AFTER are answered; then `kill` (with the writes still in flight
     * counted), OUTAGE_WRITES more sent while the component is down, `restart`; resolves once every sender
     * has its last answer (or failure).
     */
    const drill = async (name: string, kill: () => Promise<void>, restart: () => Promise<void>) => {
      let answered = 0;
      let failed = 0;
      const failures = new Map<string, number>();
      let inFlight = 0;
      let killedAt = 0;
      let inFlightAtKill = -1;
      let answeredBeforeKill = 0;
      let outageSent = 0;
      let killing: Promise<void> | undefined;
      const inTime = deadline({ what: `${name}: ${KILL_AFTER} answers to kill on`, timeoutMs: 120_000 });
      const stopped = () => killing !== undefined && outageSent >= OUTAGE_WRITES;
      const send = async (write: (n: number) => Promise<void>) => {
        while (!stopped()) {
          inTime();
          if (killing) outageSent++;
          const n = sent++;
          inFlight++;
          try {
            await write(n);
            answered++;
          } catch (error) {
            // Cut off by the kill: it may have been written, or not. Counted by why, before and after the kill.
            failed++;
            const why = `${killing ? 'after' : 'before'} the kill: ${error instanceof Error ? error.message : String(error)}`;
            failures.set(why, (failures.get(why) ?? 0) + 1);
          } finally {
            inFlight--;
          }
          if (!killing && answered >= KILL_AFTER) {
            // The writes of every other sender are outstanding right now: the kill lands among them.
            inFlightAtKill = inFlight;
            answeredBeforeKill = answered;
            killedAt = performance.now();
            killing = kill();
          }
        }
      };
      const authorize = async (n: number) => {
        const refund = n % 5 === 4;
        const response = await timed('POST', `/v1/simulate/authorization${refund ? '/refund' : ''}`, {
          cardId: cards[n % cards.length],
          amount: refund ? 0.5 : 1 + (n % 7) / 100,
          currency: 'USD',
          merchant: { name: 'Drill Shop', city: 'Lyon', country: 'FR', mcc: '5812' },
        });
        if (response.status >= 500)
          throw new Error(`authorization answered ${response.status} ${errorMessage(response.body)}`);
        if (response.status !== 200)
          return void refused.push(`authorization: ${response.status} ${JSON.stringify(response.body)}`);
        const authorization = response.body.authorization as { id: string; status: string } | null;
        if (authorization) acknowledgedAuthorizations.set(authorization.id, authorization.status);
      };
      const createUser = async (n: number) => {
        const response = await timed('POST', '/v1/users', {
          email: `drill-user-${n}@example.com`,
          firstName: 'Drill',
          lastName: 'User',
          countryOfResidence: 'FR',
        });
        if (response.status >= 500)
          throw new Error(`user creation answered ${response.status} ${errorMessage(response.body)}`);
        if (response.status !== 201)
          return void refused.push(`user: ${response.status} ${JSON.stringify(response.body)}`);
        acknowledgedUsers.add(response.body.id as string);
      };
      const senders = [
        ...Array.from({ length: AUTHORIZATION_SENDERS }, () => send(authorize)),
        ...Array.from({ length: USER_SENDERS }, () => send(createUser)),
      ];
      // The component stays down while the outage's writes go out (bounded: the senders may all hang).
      await waitFor(() => killing !== undefined, {
        what: `${name}: the kill`,
        timeoutMs: 120_000,
        intervalMs: 20,
      });
      await killing;
      await waitFor(() => outageSent >= OUTAGE_WRITES, {
        what: `${name}: ${OUTAGE_WRITES} writes sent during the outage`,
        timeoutMs: 10_000,
        intervalMs: 20,
      }).catch(() => undefined);
      phase(`${name}: killed with ${inFlightAtKill} writes in flight`);
      await restart();
      phase(`${name}: restarted`);
      const restartMs = Math.round(performance.now() - killedAt);
      await Promise.all(senders);
      await recovered(name);
      const report: DrillReport = {
        drill: name,
        inFlightAtKill,
        answeredBeforeKill,
        failedWrites: failed,
        failures: Object.fromEntries(failures),
        restartMs,
        recoveryMs: Math.round(performance.now() - killedAt),
      };
      reports.push(report);
      process.stdout.write(`drill ${JSON.stringify(report)}\n`);
      // The drill counts only if it killed among outstanding writes.
      expect({ drill: name, inFlightAtKill: inFlightAtKill > 0 }).toEqual({
        drill: name,
        inFlightAtKill: true,
      });
    };

    /** Polls `check` until it passes (bounded); then runs it once more so that its failure is the test's. */
    const eventually = async (what: string, check: () => Promise<void>, timeoutMs = 60_000) => {
      await waitFor(
        () =>
          check().then(
            () => true,
            () => false,
          ),
        { what, timeoutMs, intervalMs: 250 },
      ).catch(() => undefined);
      await check();
      phase(what);
    };

    /** Every check, once the topology is healthy again. */
    const recovered = async (name: string) => {
      // A process a drill brought down with it (a service exiting on a lost connection) is started again,
      // as its supervisor would: the exit is reported, and the checks below run on the whole topology.
      for (const p of processes) if (p.running === false) await p.restart();
      await eventually(`${name}: every process healthy`, async () => {
        for (const p of processes) {
          const health = await fetch(`http://127.0.0.1:${p.ports.health}/health`, {
            signal: AbortSignal.timeout(2_000),
          });
          expect({ process: p.name, status: health.status }).toEqual({ process: p.name, status: 200 });
        }
      });
      // Every acknowledged write is there.
      await eventually(
        `${name}: every acknowledged authorization readable with its answered status`,
        async () => {
          const missing: string[] = [];
          for (const [id, status] of acknowledgedAuthorizations) {
            const read = await call('GET', `/v1/authorizations/${id}`);
            if (read.status !== 200 || read.body.status !== status)
              missing.push(`${id}: ${read.status} ${String(read.body.status)} (answered ${status})`);
          }
          expect(missing).toEqual([]);
        },
      );
      await eventually(`${name}: every acknowledged user readable`, async () => {
        const missing: string[] = [];
        for (const id of acknowledgedUsers) {
          const read = await call('GET', `/v1/users/${id}`);
          if (read.status !== 200) missing.push(`${id}: ${read.status}`);
        }
        expect(missing).toEqual([]);
      });
      // Every wallet: available = balance - holds of its confirmed, uncleared authorizations; no refund left
      // uncredited; the balance is the deposit plus exactly the refunds cleared.
      for (const { walletId, cardIds } of wallets) {
        await eventually(`${name}: wallet ${walletId}'s ledger identity`, async () => {
          const identity = await identityOf(call, walletId, cardIds);
          expect({
            walletId,
            available: identity.available,
            uncredited: identity.uncredited,
            balance: identity.balance,
          }).toEqual({
            walletId,
            available: identity.balance - identity.holds,
            uncredited: 0,
            balance: DEPOSIT_USD * 100 + identity.refunded,
          });
        });
      }
      // Every Event reached the webhook receiver subscribed before the storm, at least once.
      await eventually(`${name}: every Event delivered to the webhook`, async () => {
        const delivered = new Set(receiver.deliveries.map((request) => request.body.eventId));
        const undelivered: string[] = [];
        for (let fromPage = 0; ; fromPage++) {
          const page = await call('GET', `/v1/events?limit=100&fromPage=${fromPage}`);
          expect(page.status).toBe(200);
          for (const event of page.body.items as {
            eventId: string;
            eventName: string;
            eventTargetId: string;
          }[]) {
            // The subscription's own creation happened before it could deliver anything.
            if (event.eventName === 'webhookSubscription.created' && event.eventTargetId === subscriptionId)
              continue;
            if (!delivered.has(event.eventId)) undelivered.push(`${event.eventName} ${event.eventId}`);
          }
          if (!page.body.hasMore) break;
        }
        expect(undelivered).toEqual([]);
      });
      // In the store itself, on the drill's database: every confirmed authorization has its hold and no hold
      // exists without its authorization; every read model equals a rebuild from the log.
      const infrastructure = await openPostgresInfrastructure({
        ...readPostgresConfig('cip-drills-check', engines, PLATFORM_PERSONAL_DATA),
        poolSize: 1,
      });
      try {
        const scope = infrastructure.scope('sandbox');
        await eventually(`${name}: holds in the store equal the confirmed authorizations`, async () => {
          const { open, byAuthorization } = await holdsInStore(scope, wallets);
          expect(open).toEqual(byAuthorization);
        });
        await eventually(`${name}: read models equal a rebuild from the log`, async () => {
          const differences = await verifyProjections(scope, READ_MODELS);
          expect(
            differences.filter((d) => d.missing.length + d.extra.length + d.different.length > 0),
          ).toEqual([]);
        });
      } finally {
        await infrastructure.close();
      }
    };

    const authorizations = named('authorizations');
    await drill(
      'kill -9 of the authorizations service',
      () => authorizations.kill('SIGKILL'),
      () => authorizations.restart(),
    );
    await drill(
      'kill -9 of the Kafka broker',
      async () => void (await ciScript('kafka.sh', ['kill', kafkaDir])),
      async () => void (await ciScript('kafka.sh', ['restart', kafkaDir])),
    );
    await drill(
      'PostgreSQL restarted with pg_ctl restart -m immediate',
      () => restartPostgresImmediately(pgDir),
      async () => undefined,
    );
    const relay = named('relay');
    await drill(
      'kill -9 of the relay',
      () => relay.kill('SIGKILL'),
      () => relay.restart(),
    );

    expect(refused).toEqual([]);
    // No process exits on its own through a drill (each was started again, as a supervisor would, so that the
    // drills after it ran on the whole topology; its output is on the test output).
    expect(unexpectedExits).toEqual([]);
    expect(acknowledgedAuthorizations.size).toBeGreaterThan(0);
    expect([...acknowledgedAuthorizations.values()]).toContain('confirmed');
    if (unexpectedExits.length)
      process.stdout.write(`processes that exited during the drills: ${unexpectedExits.join(', ')}\n`);
  }, 900_000);
});
