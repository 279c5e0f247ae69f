import { DEFAULT_PROGRAM_AUTHORIZATION } from '@cip/authorizations/contract';
import { AuthorizationExpiryScheduler } from '@cip/authorizations/service';
import { KycExpiryScheduler } from '@cip/kyc/service';
import { CardAuthenticationExpiryScheduler } from '@cip/three-ds/service';
import { DeliveryEngine } from '@cip/webhooks/service';
import type { StaffRole } from '@cip/backoffice/contract';
import { StaffService, totpCode } from '@cip/backoffice/service';
import { DEFAULT_DISTRIBUTOR_ID, DistributorsService } from '@cip/distributors/service';
import { ProgramConfig } from '@cip/distributors/domain';
import {
  builtAppMain,
  SplitTopology,
  SplitTopologyOptions,
  startSplitTopology,
} from '@cip/platform/topologies';
import {
  createLogger,
  EvmChainConfig,
  Logger,
  ManualClock,
  PlatformConfig,
  readPlatformConfig,
  systemClock,
} from '@cip/shared/runtime';
import { waitFor } from '@cip/shared/testing';
import { execFile } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { basename, dirname, join } from 'node:path';
import { isDeepStrictEqual, promisify } from 'node:util';
import request from 'supertest';
import { RunningPlatform, startPlatform } from '../start-platform';
import { OpenApiResponses } from './openapi-responses';
import { dropSplitEngines, splitEngineEnv, splitEngineVariables } from './split-engines';
import { e2eTopology, type E2eTopology, splitStoreDriver } from './topology';

export const SANDBOX_KEY = 'sk_sandbox_e2eTestKeyAAAAAAAAAAAAAAAAAAAAAAAAAA';
export const PRODUCTION_KEY = 'sk_live_e2eTestKeyBBBBBBBBBBBBBBBBBBBBBBBBBBBB';

export interface Harness {
  /** Which platform the spec runs against (E2E_TOPOLOGY): the one-process platform or the split processes. */
  topology: E2eTopology;
  /** Where the API listens: the one-process platform, or the gateway of the split topology. */
  url: string;
  /** The default distributor (the sandbox and production keys' one). */
  distributorId: string;
  /**
   * The in-process platform (its Nest app, for `app.get`): ONE-PROCESS ONLY. In the split topology reading
   * it throws, naming the spec: a test that needs in-process services is `itOnOneProcess` (testing/topology).
   */
  platform: RunningPlatform;
  dataDir: string;
  /** Every response is checked against the served OpenAPI document when awaited (`OpenApiResponses`). */
  http: ReturnType<typeof request>;
  /** The in-process distributors service: ONE-PROCESS ONLY (operator changes go through `operatorAdmin`). */
  distributors: DistributorsService;
  /** Where the operator app (dashboard and operator API) listens. */
  dashboardUrl: string;
  /**
   * Where the process hosting `service` (a PLATFORM_SERVICES name) answers /health (its readiness checks and
   * their details) and /metrics: the one-process platform itself, or that service's process when split.
   */
  systemUrl(service: string): string;
  /**
   * The deadline sweep of `service` done at the test clock's time (startHarness({ clock })): in process on the
   * one-process platform (`runDue`); on the split topology, waits until that service's process reports on
   * /metrics (`deadline_sweep_clock_seconds`) a sweep completed at the clock's time or later (each sweep runs
   * when the clock moves). Everything due by then is expired once it resolves; nothing not yet due is.
   */
  sweepDue(service: DeadlineSweepService): Promise<void>;
  /** The platform's time: the test's clock (startHarness({ clock })) or the system's. */
  now(): Date;
  /** The operator API: every response is checked against /operator/v1/openapi.json when awaited. */
  operatorHttp: ReturnType<typeof request>;
  /**
   * A staff member of `role` invited as an operator does (in process on the one-process platform; by the
   * CLI's `staff create-admin` on DATA_DIR, or an admin over the operator API, on the split topology), not
   * accepted yet: the invitation link a person opens in a browser.
   */
  inviteStaff(
    role: StaffRole,
    who: { email: string; name: string },
  ): Promise<{ staffId: string; invitationUrl: string }>;
  /**
   * A new staff member of `role`, invited (in process on the one-process platform; by the CLI's `staff
   * create-admin` on DATA_DIR, or an admin over the operator API, on the split topology), its invitation
   * accepted and signed in over HTTP: the session cookie, the CSRF token and the headers every change needs.
   */
  signInStaff(role?: StaffRole, options?: { email?: string }): Promise<StaffSession>;
  /**
   * The harness's own admin, signed in once (on first use) for operator actions over the operator API:
   * `h.operatorHttp.patch(...).set((await h.operatorAdmin()).headers)`. Both topologies.
   */
  operatorAdmin(): Promise<StaffSession>;
  /**
   * A second distributor with its own sandbox key and program: by the in-process service on the one-process
   * platform, over the operator API by `operatorAdmin` on the split topology.
   */
  newDistributor(program?: Partial<ProgramConfig>): Promise<{ distributorId: string; sandboxKey: string }>;
  /** Stops the platform (every process when split); the data directory is removed unless `keepData`. */
  close(options?: { keepData?: boolean }): Promise<void>;
}

export interface HarnessOptions {
  rateLimit?: { ratePerSecond: number; burst: number };
  httpTimeouts?: PlatformConfig['httpTimeouts'];
  /** One-process only. */
  clock?: ManualClock;
  /** Webhook tests with a local receiver turn this on; SSRF tests keep it off (the default). */
  allowPrivateWebhookUrls?: boolean;
  /** WEBHOOK_BREAKER_RESET_TIMEOUT_MS: how long a failing endpoint's open circuit stays open (real time). */
  webhookBreakerResetTimeoutMs?: number;
  /** Reopen an existing data directory (restart tests); a fresh one otherwise. */
  dataDir?: string;
  /** EVM chains of the wallets context (a local ganache chain in the funding tests); split: CHAIN_*_<ENV>. */
  chains?: PlatformConfig['chains'];
  /** PUBLIC_BASE_URL; links start with the listening URL without it. */
  publicBaseUrl?: string;
  /** Where the platform logs (silent without it): tests that check what reaches the logs. One-process only. */
  logger?: Logger;
  /** Split: LOG_LEVEL of every process (warn without it); read their lines with `splitLogLines`. */
  splitLogLevel?: string;
  /** The card network's ISO 8583 endpoint the sandbox issuer connects to (a test's IsoServer); split: CARD_NETWORK_ISO_ADDRESS. */
  cardNetwork?: PlatformConfig['cardNetwork'];
  /** False: the platform's issuer does not link to its card network (a test's fake issuer answers). One-process only. */
  linkIssuer?: boolean;
  /** The dashboard's built files (tests of the page shown when it was not built). One-process only. */
  dashboardDir?: string;
  /** Settlement addresses and schedule (default: the configuration's, on demand only in tests). */
  settlement?: PlatformConfig['settlement'];
}

/**
 * The whole platform on free ports and a fresh data directory, as a distributor meets it, in the topology
 * E2E_TOPOLOGY names (`one-process`, the default, or `split`: one process per service behind the gateway).
 * Tests drive it over HTTP (supertest) and operator actions over the operator API; only one-process specs
 * reach into the in-process services (`h.platform`).
 */
export async function startHarness(options: HarnessOptions = {}): Promise<Harness> {
  return e2eTopology() === 'split' ? startSplitHarness(options) : startOneProcessHarness(options);
}

async function startOneProcessHarness(options: HarnessOptions): Promise<Harness> {
  const dataDir = options.dataDir ?? mkdtempSync(join(tmpdir(), 'cip-e2e-'));
  const config = readPlatformConfig({});
  const platform = await startPlatform(
    {
      ...config,
      webhooks: {
        ...config.webhooks,
        allowPrivateUrls: options.allowPrivateWebhookUrls ?? false,
        breakerResetTimeoutMs: options.webhookBreakerResetTimeoutMs ?? config.webhooks.breakerResetTimeoutMs,
      },
      port: 0,
      dashboardPort: 0,
      host: '127.0.0.1',
      dataDir,
      bootstrapSandboxApiKey: SANDBOX_KEY,
      bootstrapProductionApiKey: PRODUCTION_KEY,
      rateLimit: options.rateLimit ?? { ratePerSecond: 100_000, burst: 100_000 },
      httpTimeouts: options.httpTimeouts ?? config.httpTimeouts,
      chains: options.chains ?? {},
      publicBaseUrl: options.publicBaseUrl,
      cardNetwork: options.cardNetwork,
      // Tests cut settlement batches on demand (the CLI's `settlement run`); none is cut behind their back.
      settlement: options.settlement ?? { ...config.settlement, intervalMs: 0 },
    },
    {
      logger: options.logger ?? createLogger('silent'),
      clock: options.clock ?? systemClock,
      pollIntervalMs: 20,
      linkIssuer: options.linkIssuer,
      dashboardDir: options.dashboardDir,
    },
  );
  const staff = platform.operatorApp.get(StaffService);
  const clock = options.clock ?? systemClock;
  return harnessOver({
    topology: 'one-process',
    url: platform.url,
    dashboardUrl: platform.dashboardUrl,
    distributorId: platform.distributorId,
    dataDir,
    platform: () => platform,
    distributors: () => platform.app.get(DistributorsService),
    systemUrl: () => platform.url,
    async sweepDue(service) {
      if (service === 'webhooks') {
        // The retries that came due go, and their answers are in the delivery log.
        platform.app.get(DeliveryEngine).runDue();
        await platform.app.get(DeliveryEngine).idle();
        return;
      }
      await platform.app.get(DEADLINE_SWEEPS[service].scheduler).runDue();
    },
    now: () => clock.now(),
    async invite({ email, name }, role) {
      const { staff: invited, invitation } = await staff.invite({ email, name, role }, null);
      return { staffId: invited.id, invitationUrl: invitation.url };
    },
    close: () => platform.close(),
  });
}

/** Where the split harness shares a test's clock with the processes on `dataDir` (TEST_CLOCK_FILE). */
const testClockFile = (dataDir: string) => join(dataDir, 'test-clock', 'now');

/**
 * The services that act on the clock: the deadline sweeps (their class, one-process) and the webhook retries;
 * on split, the gauge on /metrics where each reports the clock time it last looked at.
 */
export type DeadlineSweepService = 'kyc' | 'authorizations' | 'three-ds' | 'webhooks';
const DEADLINE_SWEEPS = {
  kyc: { scheduler: KycExpiryScheduler, label: 'KYC expiry' },
  authorizations: { scheduler: AuthorizationExpiryScheduler, label: 'Authorization expiry' },
  'three-ds': { scheduler: CardAuthenticationExpiryScheduler, label: 'Card authentication expiry' },
} as const;
const lookedAtGauge = (service: DeadlineSweepService) =>
  service === 'webhooks'
    ? 'webhook_retry_clock_seconds'
    : `deadline_sweep_clock_seconds{sweep="${DEADLINE_SWEEPS[service].label}"}`;

/** What the split topology cannot take: each needs an object of the test's process inside the platform's. */
const ONE_PROCESS_OPTIONS = ['logger', 'linkIssuer', 'dashboardDir'] as const;

async function startSplitHarness(options: HarnessOptions): Promise<Harness> {
  const given = ONE_PROCESS_OPTIONS.filter((name) => options[name] !== undefined);
  if (given.length > 0) {
    throw new Error(
      `startHarness({ ${given.join(', ')} }) needs the one-process platform (E2E_TOPOLOGY=split runs one ` +
        `process per service): ${specName()} cannot run on the split topology; leave it out of ` +
        'apps/platform/src/testing/split-suite.js or guard the test with itOnOneProcess',
    );
  }
  const dataDir = options.dataDir ?? mkdtempSync(join(tmpdir(), 'cip-e2e-split-'));
  const rateLimit = options.rateLimit ?? { ratePerSecond: 100_000, burst: 100_000 };
  const env: NodeJS.ProcessEnv = {
    LOG_LEVEL: options.splitLogLevel ?? 'warn',
    BOOTSTRAP_PRODUCTION_API_KEY: PRODUCTION_KEY,
    WEBHOOK_ALLOW_PRIVATE_URLS: String(options.allowPrivateWebhookUrls ?? false),
    RATE_LIMIT_PER_SECOND: String(rateLimit.ratePerSecond),
    RATE_LIMIT_BURST: String(rateLimit.burst),
    // Tests run settlement on demand; no batch is cut behind their back.
    SETTLEMENT_INTERVAL_MS: String(options.settlement?.intervalMs ?? 0),
  };
  if (options.publicBaseUrl) env.PUBLIC_BASE_URL = options.publicBaseUrl;
  if (options.webhookBreakerResetTimeoutMs !== undefined) {
    env.WEBHOOK_BREAKER_RESET_TIMEOUT_MS = String(options.webhookBreakerResetTimeoutMs);
  }
  if (options.cardNetwork) {
    env.CARD_NETWORK_ISO_ADDRESS = `${options.cardNetwork.host}:${options.cardNetwork.port}`;
  }
  if (options.httpTimeouts) {
    env.HTTP_HEADERS_TIMEOUT_MS = String(options.httpTimeouts.headersMs);
    env.HTTP_REQUEST_TIMEOUT_MS = String(options.httpTimeouts.requestMs);
  }
  for (const environment of ['sandbox', 'production'] as const) {
    const address = options.settlement?.addresses[environment];
    if (address) env[`SETTLEMENT_ADDRESS_${environment.toUpperCase()}`] = address;
    const chain = options.chains?.[environment];
    if (chain) Object.assign(env, chainVariables(chain, environment));
  }
  // The test's ManualClock, shared with every process through a file they read as their clock (FileClock):
  // one standing clock, moved by the test; each deadline sweep looks again when it moves.
  const clock = options.clock;
  if (clock) {
    env.TEST_CLOCK_FILE = testClockFile(dataDir);
    // In a folder of its own: each process watches the folder for the file's replacement.
    mkdirSync(dirname(env.TEST_CLOCK_FILE), { recursive: true });
    clock.shareThrough(env.TEST_CLOCK_FILE);
  }
  const driver = splitStoreDriver();
  // On PostgreSQL and Kafka: the spec file's own database and topics, and what the CLI needs to reach them.
  const engines = driver === 'postgres' ? await splitEngineVariables(dataDir) : {};
  Object.assign(env, engines);
  let started = false;
  const starting = startSplitTopologyOnFreePorts({
    dataDir,
    driver,
    ports: 'free',
    sandboxKey: SANDBOX_KEY,
    env,
    startTimeoutMs: 150_000,
    // A process dying mid-test fails the test on what it no longer answers: say which one, and why. (One that
    // dies while the topology starts fails the start, whose error says the same; EADDRINUSE is retried.)
    onExit: ({ name, logFile }, code, signal) => {
      if (!started) return;
      const tail = existsSync(logFile) ? readFileSync(logFile, 'utf8').slice(-4_000) : '';
      console.error(`split topology: ${name} exited (${code ?? signal}) during ${specName()}:\n${tail}`);
    },
  });
  splitStarts.add(starting);
  const topology: SplitTopology = await starting;
  started = true;
  const parts: TopologyParts = {
    topology: 'split',
    url: topology.gatewayUrl,
    dashboardUrl: topology.dashboardUrl,
    // The bootstrap's default distributor: the same id on every data directory.
    distributorId: DEFAULT_DISTRIBUTOR_ID,
    dataDir,
    platform: () => oneProcessOnly('h.platform'),
    distributors: () => oneProcessOnly('h.distributors'),
    systemUrl(service) {
      const process = topology.services.find((candidate) => candidate.name === service);
      if (!process) throw new Error(`No process named ${service} in the split topology`);
      return `http://127.0.0.1:${process.ports.health}`;
    },
    async sweepDue(service) {
      if (!clock) throw new Error('sweepDue needs startHarness({ clock }): the sweeps look when it moves');
      const at = clock.now().getTime();
      const gauge = lookedAtGauge(service);
      const metricsUrl = `${this.systemUrl(service)}/metrics`;
      await waitFor(
        async () => {
          const text = await (await fetch(metricsUrl)).text();
          const line = text.split('\n').find((l) => l.startsWith(`${gauge} `));
          // Seconds with milliseconds as the gauge holds them: compared in whole milliseconds.
          return line !== undefined && Math.round(Number(line.split(' ').pop()) * 1000) >= at;
        },
        {
          what: `${gauge} of ${service} at ${new Date(at).toISOString()}`,
          timeoutMs: 60_000,
          intervalMs: 50,
        },
      );
    },
    now: () => (clock ?? systemClock).now(),
    async invite({ email, name }, role, harness) {
      if (role === 'admin') {
        // As an operator invites the first admin of a running platform: the CLI on its DATA_DIR, configured
        // as the platform is (where staff reach the dashboard, which its invitation links start with).
        const invited = JSON.parse(
          await cli(dataDir, ['staff', 'create-admin', '--email', email, '--name', name, '--json'], {
            DASHBOARD_PUBLIC_URL: topology.dashboardUrl,
          }),
        );
        return { staffId: invited.staff.id, invitationUrl: invited.invitation.url };
      }
      // Any other role is invited by an admin, over the operator API.
      const admin = await harness.operatorAdmin();
      const invited = await harness.operatorHttp
        .post('/operator/v1/staff')
        .set(admin.headers)
        .send({ email, name, role })
        .expect(201);
      return { staffId: invited.body.staff.id, invitationUrl: invited.body.invitation.url };
    },
    async close() {
      splitStarts.delete(starting);
      await topology.close();
    },
  };
  try {
    return await harnessOver(parts);
  } catch (error) {
    await topology.close();
    throw error;
  }
}

/** An environment's EVM chain as the wallets service reads it (CHAIN_*_<ENV>, `evmChainConfig`). */
function chainVariables(chain: EvmChainConfig, environment: 'sandbox' | 'production'): NodeJS.ProcessEnv {
  const values: Record<string, string | number | undefined> = {
    CHAIN_RPC_URL: chain.rpcUrl,
    CHAIN_ID: chain.chainId,
    USDC_CONTRACT_ADDRESS: chain.usdcContractAddress,
    CHAIN_CONFIRMATIONS: chain.confirmations,
    CHAIN_POLL_INTERVAL_MS: chain.pollIntervalMs,
    CHAIN_MAX_BLOCK_RANGE: chain.maxBlockRange,
    CHAIN_START_BLOCK: chain.startBlock,
    HOT_WALLET_PRIVATE_KEY: chain.hotWalletPrivateKey,
  };
  return Object.fromEntries(
    Object.entries(values)
      .filter(([, value]) => value !== undefined)
      .map(([name, value]) => [`${name}_${environment.toUpperCase()}`, String(value)]),
  );
}

/**
 * `startSplitTopology` on free ports, again on others when a process found its port taken: the ports are
 * free when picked, but a dozen processes start after that on a machine where other tests open connections
 * (each takes an ephemeral port from the same range), so one is now and then taken in between.
 */
async function startSplitTopologyOnFreePorts(options: SplitTopologyOptions): Promise<SplitTopology> {
  for (let attempt = 1; ; attempt++) {
    try {
      return await startSplitTopology(options);
    } catch (error) {
      if (attempt === 3 || !String(error).includes('EADDRINUSE')) throw error;
    }
  }
}

/** Split topologies started and not closed by their harness (see `closeLeftoverTopologies`). */
const splitStarts = new Set<Promise<SplitTopology>>();

/**
 * Stops every split topology of this spec file that its harness did not close: a `beforeAll` that timed out
 * while the topology was still starting leaves one running otherwise (a dozen processes). The e2e-split
 * project's setup runs it after each file; it waits for starts still under way.
 */
export async function closeLeftoverTopologies(): Promise<void> {
  const left = [...splitStarts];
  splitStarts.clear();
  await Promise.all(
    left.map((start) =>
      start.then(
        (topology) => topology.close(),
        () => undefined,
      ),
    ),
  );
}

/** The pieces each topology provides; the harness's operations are the same on both. */
interface TopologyParts {
  topology: E2eTopology;
  url: string;
  dashboardUrl: string;
  distributorId: string;
  dataDir: string;
  platform(): RunningPlatform;
  distributors(): DistributorsService;
  systemUrl(service: string): string;
  sweepDue(service: DeadlineSweepService): Promise<void>;
  /** The platform's time, for the TOTP codes. */
  now(): Date;
  /** Invites a staff member as an operator would (`harness`: its operator API): their id and invitation token. */
  invite(
    who: { email: string; name: string },
    role: StaffRole,
    harness: Harness,
  ): Promise<{ staffId: string; invitationUrl: string }>;
  close(): Promise<void>;
}

async function harnessOver(parts: TopologyParts): Promise<Harness> {
  const responses = await OpenApiResponses.of(parts.url);
  const operatorResponses = await OpenApiResponses.of(parts.dashboardUrl, '/operator/v1/');
  const operatorHttp = operatorResponses.agent(parts.dashboardUrl);
  let admin: Promise<StaffSession> | undefined;
  const harness: Harness = {
    topology: parts.topology,
    url: parts.url,
    distributorId: parts.distributorId,
    get platform() {
      return parts.platform();
    },
    dataDir: parts.dataDir,
    http: responses.agent(parts.url),
    get distributors() {
      return parts.distributors();
    },
    dashboardUrl: parts.dashboardUrl,
    systemUrl: (service) => parts.systemUrl(service),
    sweepDue: (service) => parts.sweepDue(service),
    now: () => parts.now(),
    operatorHttp,
    inviteStaff: (role, who) => parts.invite(who, role, harness),
    async signInStaff(role = 'admin', { email } = {}) {
      counter++;
      const address = email ?? `${role}-${process.pid}-${counter}@example.com`;
      const { staffId, invitationUrl } = await parts.invite(
        { email: address, name: `Staff ${role}` },
        role,
        harness,
      );
      const token = tokenOf(invitationUrl);
      const pending = await operatorHttp.get(`/operator/v1/invitations/${token}`).expect(200);
      const secret: string = pending.body.totp.secret;
      const password = `correct horse ${counter} battery staple`;
      const origin = parts.dashboardUrl;
      // The invitation takes the previous step's code and the sign-in the current one: each code works once.
      await operatorHttp
        .post(`/operator/v1/invitations/${token}/accept`)
        .set('origin', origin)
        .send({ password, code: totpCode(secret, new Date(parts.now().getTime() - 30_000)) })
        .expect(200);
      const session = await signInOverHttp(operatorHttp, origin, {
        email: address,
        password,
        code: totpCode(secret, parts.now()),
      });
      return { ...session, staffId, email: address, password, totpSecret: secret };
    },
    async operatorAdmin() {
      // Signed in once; again (a new admin) when its session ended, e.g. a test's clock passed its timeout.
      if (admin) {
        const session = await admin;
        const current = await operatorHttp.get('/operator/v1/session').set('cookie', session.cookie);
        if (current.status === 200) return session;
      }
      admin = harness.signInStaff('admin');
      return admin;
    },
    async newDistributor(program = {}) {
      if (parts.topology === 'one-process') {
        // In process, as ever: the specs with a ManualClock and the audit trail see nothing else happen.
        const distributors = parts.distributors();
        const distributor = await distributors.createDistributor({ name: 'Other distributor', program });
        const key = await distributors.issueKey(distributor.distributorId, 'sandbox');
        return { distributorId: distributor.distributorId, sandboxKey: key.apiKey };
      }
      const { headers } = await harness.operatorAdmin();
      const created = await operatorHttp
        .post('/operator/v1/distributors')
        .set(headers)
        .send({ name: 'Other distributor', reason: 'e2e', ...programSettings(program) })
        .expect(201);
      const distributorId: string = created.body.distributorId;
      const key = await operatorHttp
        .post(`/operator/v1/distributors/${distributorId}/keys`)
        .set(headers)
        .send({ environment: 'sandbox', reason: 'e2e' })
        .expect(201);
      return { distributorId, sandboxKey: key.body.apiKey };
    },
    async close({ keepData = false } = {}) {
      await parts.close();
      if (keepData) return;
      if (parts.topology === 'split') await dropSplitEngines(parts.dataDir);
      rmSync(parts.dataDir, { recursive: true, force: true });
    },
  };
  return harness;
}

/**
 * A program as the operator API takes it (the texts of `cli distributors configure`): the settings the specs
 * give `newDistributor`; any other is refused here rather than silently dropped.
 */
export function programSettings(program: Partial<ProgramConfig>): Record<string, unknown> {
  const { allowedCountries, b2b, prepaid, kycImportEnabled, threeDs, authorization, ...others } = program;
  // Of the authorization settings, the settlement address only (the others as the defaults).
  const { settlementAddress, ...pricing } = authorization ?? DEFAULT_PROGRAM_AUTHORIZATION;
  const { settlementAddress: _none, ...defaultPricing } = DEFAULT_PROGRAM_AUTHORIZATION;
  if (!isDeepStrictEqual(pricing, defaultPricing)) Object.assign(others, { authorization });
  if (Object.keys(others).length > 0) {
    throw new Error(
      `newDistributor: map ${Object.keys(others).join(', ')} to the operator API's settings first`,
    );
  }
  return {
    countries: allowedCountries,
    b2b,
    prepaid,
    kycImport: kycImportEnabled,
    threeDsDeadline: threeDs ? `${threeDs.challengeDeadlineSeconds}s` : undefined,
    settlementAddress: settlementAddress ?? undefined,
  };
}

const tokenOf = (invitationUrl: string) => invitationUrl.split('/').pop() ?? '';

/** The spec file running now, for the messages of what the split topology cannot do. */
function specName(): string {
  const path = expect.getState().testPath;
  return path ? basename(path) : 'this spec';
}

function oneProcessOnly(what: string): never {
  throw new Error(
    `${what} is the in-process platform, which the split topology (E2E_TOPOLOGY=split) does not have: ` +
      `${specName()}${expect.getState().currentTestName ? ` ("${expect.getState().currentTestName}")` : ''} ` +
      'is one-process-only. Use the harness operations (operatorAdmin, newDistributor, signInStaff) or the ' +
      'signal the test needs, guard the test with itOnOneProcess, or leave the spec out of ' +
      'apps/platform/src/testing/split-suite.js',
  );
}

/** Runs the built CLI on `dataDir` as an operator does (`npm run cli -- ...`); resolves with what it printed. */
export async function cli(dataDir: string, argv: string[], env: NodeJS.ProcessEnv = {}): Promise<string> {
  // On the platform's clock: the test clock its processes share, when the split harness made one.
  const clockFile = testClockFile(dataDir);
  const clock = existsSync(clockFile) ? { TEST_CLOCK_FILE: clockFile } : {};
  try {
    const { stdout } = await promisify(execFile)(process.execPath, [builtAppMain('cli'), ...argv], {
      env: { ...process.env, ...clock, ...splitEngineEnv(dataDir), ...env, DATA_DIR: dataDir },
    });
    return stdout;
  } catch (error) {
    const failed = error as { code?: number; stdout?: string; stderr?: string };
    throw new Error(`cli ${argv.join(' ')} failed (${failed.code}):\n${failed.stdout}\n${failed.stderr}`);
  }
}

export interface StaffSession {
  staffId: string;
  email: string;
  password: string;
  /** The TOTP secret set up with the invitation: `totpCode(secret, at)` computes codes. */
  totpSecret: string;
  /** `cip_staff_session=<value>`, the Cookie header of the session. */
  cookie: string;
  csrfToken: string;
  /** What every change needs: the cookie, the CSRF token and a same-origin `Origin`. */
  headers: Record<string, string>;
}

/** Signs in over HTTP (`POST /operator/v1/session`); fails unless it answers 200 with the session cookie. */
export async function signInOverHttp(
  operatorHttp: ReturnType<typeof request>,
  origin: string,
  credentials: { email: string; password: string; code: string },
): Promise<Pick<StaffSession, 'cookie' | 'csrfToken' | 'headers'>> {
  const answer = await operatorHttp
    .post('/operator/v1/session')
    .set('origin', origin)
    .send(credentials)
    .expect(200);
  const setCookie = ([] as string[]).concat(answer.headers['set-cookie'] ?? []);
  const cookie = setCookie.find((line) => line.startsWith('cip_staff_session='))?.split(';')[0];
  if (!cookie) throw new Error(`sign-in set no session cookie: ${setCookie.join(' | ')}`);
  const csrfToken: string = answer.body.csrfToken;
  return { cookie, csrfToken, headers: { cookie, 'x-csrf-token': csrfToken, origin } };
}

let counter = 0;
/** A valid create-user body with a unique email. */
export function newUserBody(overrides: Record<string, unknown> = {}) {
  counter++;
  return {
    email: `user-${process.pid}-${Date.now()}-${counter}@example.com`,
    firstName: 'Ada',
    lastName: 'Lovelace',
    countryOfResidence: 'FR',
    ...overrides,
  };
}

/** Split: every line its processes have logged so far (<dataDir>/logs/<name>.log, at `splitLogLevel`). */
export function splitLogLines(h: Harness): string[] {
  const dir = join(h.dataDir, 'logs');
  return readdirSync(dir).flatMap((name) =>
    readFileSync(join(dir, name), 'utf8')
      .split('\n')
      .filter((line) => line !== ''),
  );
}
