import type { StaffRole } from '@cip/backoffice/contract';
import { StaffService, totpCode } from '@cip/backoffice/service';
import { DistributorsService } from '@cip/distributors/service';
import { ProgramConfig } from '@cip/distributors/domain';
import {
  createLogger,
  Logger,
  ManualClock,
  PlatformConfig,
  readPlatformConfig,
  systemClock,
} from '@cip/shared/runtime';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import request from 'supertest';
import { RunningPlatform, startPlatform } from '../start-platform';
import { OpenApiResponses } from './openapi-responses';

export const SANDBOX_KEY = 'sk_sandbox_e2eTestKeyAAAAAAAAAAAAAAAAAAAAAAAAAA';
export const PRODUCTION_KEY = 'sk_live_e2eTestKeyBBBBBBBBBBBBBBBBBBBBBBBBBBBB';

export interface Harness {
  platform: RunningPlatform;
  dataDir: string;
  /** Every response is checked against the served OpenAPI document when awaited (`OpenApiResponses`). */
  http: ReturnType<typeof request>;
  distributors: DistributorsService;
  /** Where the operator app (dashboard and operator API) listens. */
  dashboardUrl: string;
  /** The operator API: every response is checked against /operator/v1/openapi.json when awaited. */
  operatorHttp: ReturnType<typeof request>;
  /** The staff service of the operator app (invitations, for tests that drive sign-in themselves). */
  staff: StaffService;
  /**
   * A new staff member of `role`, invited through the service, its invitation accepted and signed in over
   * HTTP: the session cookie, the CSRF token and the headers every change needs (cookie, token, origin).
   */
  signInStaff(role?: StaffRole, options?: { email?: string }): Promise<StaffSession>;
  /** A second distributor with its own sandbox key and program. */
  newDistributor(program?: Partial<ProgramConfig>): Promise<{ distributorId: string; sandboxKey: string }>;
  /** Stops the platform; the data directory is removed unless `keepData` (to start again on it). */
  close(options?: { keepData?: boolean }): Promise<void>;
}

/**
 * The whole embedded platform on a free port and a fresh data directory, as a distributor meets it:
 * tests drive it over HTTP only (supertest), apart from operator actions done through the CLI's services.
 */
export async function startHarness(
  options: {
    rateLimit?: { ratePerSecond: number; burst: number };
    httpTimeouts?: PlatformConfig['httpTimeouts'];
    clock?: ManualClock;
    /** Webhook tests with a local receiver turn this on; SSRF tests keep it off (the default). */
    allowPrivateWebhookUrls?: boolean;
    webhookBreakerResetTimeoutMs?: number;
    /** Reopen an existing data directory (restart tests); a fresh one otherwise. */
    dataDir?: string;
    /** EVM chains of the wallets context (a local ganache chain in the funding tests). */
    chains?: PlatformConfig['chains'];
    /** PUBLIC_BASE_URL; links start with the listening URL without it. */
    publicBaseUrl?: string;
    /** Where the platform logs (silent without it): tests that check what reaches the logs. */
    logger?: Logger;
    /** The card network's ISO 8583 endpoint the sandbox issuer connects to (a test's IsoServer). */
    cardNetwork?: PlatformConfig['cardNetwork'];
    /** False: the platform's issuer does not link to its card network (a test's fake issuer answers). */
    linkIssuer?: boolean;
    /** The dashboard's built files (tests of the page shown when it was not built). */
    dashboardDir?: string;
    /** Settlement addresses and schedule (default: the configuration's, on demand only in tests). */
    settlement?: PlatformConfig['settlement'];
  } = {},
): Promise<Harness> {
  const dataDir = options.dataDir ?? mkdtempSync(join(tmpdir(), 'cip-e2e-'));
  const config = readPlatformConfig({});
  const platform = await startPlatform(
    {
      ...config,
      webhooks: { ...config.webhooks, allowPrivateUrls: options.allowPrivateWebhookUrls ?? false },
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
      // Tests run settlement on demand (SettlementRunner.runNow); no batch is cut behind their back.
      settlement: options.settlement ?? { ...config.settlement, intervalMs: 0 },
    },
    {
      logger: options.logger ?? createLogger('silent'),
      clock: options.clock ?? systemClock,
      pollIntervalMs: 20,
      webhookBreakerResetTimeoutMs: options.webhookBreakerResetTimeoutMs,
      linkIssuer: options.linkIssuer,
      dashboardDir: options.dashboardDir,
    },
  );
  const distributors = platform.app.get(DistributorsService);
  const responses = await OpenApiResponses.of(platform.url);
  const operatorResponses = await OpenApiResponses.of(platform.dashboardUrl, '/operator/v1/');
  const operatorHttp = operatorResponses.agent(platform.dashboardUrl);
  const staff = platform.operatorApp.get(StaffService);
  const clock = options.clock ?? systemClock;
  return {
    platform,
    dataDir,
    http: responses.agent(platform.url),
    distributors,
    dashboardUrl: platform.dashboardUrl,
    operatorHttp,
    staff,
    async signInStaff(role = 'admin', { email } = {}) {
      counter++;
      const address = email ?? `${role}-${process.pid}-${counter}@example.com`;
      const { staff: invited, invitation } = await staff.invite(
        { email: address, name: `Staff ${role}`, role },
        null,
      );
      const token = invitation.url.split('/').pop() ?? '';
      const pending = await operatorHttp.get(`/operator/v1/invitations/${token}`).expect(200);
      const secret: string = pending.body.totp.secret;
      const password = `correct horse ${counter} battery staple`;
      const origin = platform.dashboardUrl;
      // The invitation takes the previous step's code and the sign-in the current one: each code works once.
      await operatorHttp
        .post(`/operator/v1/invitations/${token}/accept`)
        .set('origin', origin)
        .send({ password, code: totpCode(secret, new Date(clock.now().getTime() - 30_000)) })
        .expect(200);
      const session = await signInOverHttp(operatorHttp, origin, {
        email: address,
        password,
        code: totpCode(secret, clock.now()),
      });
      return { ...session, staffId: invited.id, email: address, password, totpSecret: secret };
    },
    async newDistributor(program = {}) {
      const distributor = await distributors.createDistributor({ name: 'Other distributor', program });
      const key = await distributors.issueKey(distributor.distributorId, 'sandbox');
      return { distributorId: distributor.distributorId, sandboxKey: key.apiKey };
    },
    async close({ keepData = false } = {}) {
      await platform.close();
      if (!keepData) rmSync(dataDir, { recursive: true, force: true });
    },
  };
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
