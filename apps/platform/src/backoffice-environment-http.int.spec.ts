import { CanActivate, ExecutionContext, Injectable, type Provider } from '@nestjs/common';
import { Reflector } from '@nestjs/core';
import { FastifyAdapter, type NestFastifyApplication } from '@nestjs/platform-fastify';
import { Test } from '@nestjs/testing';
import { AUTHORIZATIONS_API } from '@cip/authorizations/contract';
import {
  AUDIT_TRAIL,
  type AuditEntry,
  type AuditRecordInput,
  type AuditTrail,
  permits,
  type StaffPermission,
  type StaffPrincipal,
  type StaffRole,
} from '@cip/backoffice/contract';
import { ENVIRONMENT_CONTROLLERS, STAFF_PERMISSION } from '@cip/backoffice/http';
import { OPERATIONS_PROVIDERS } from '@cip/backoffice/service';
import { CARD_OPERATIONS_API, CARDS_API } from '@cip/cards/contract';
import { CONTROL_PLANE_API, type ControlPlaneApi } from '@cip/distributors/contract';
import { DistributorDirectory } from '@cip/distributors/service';
import { EVENTS_API } from '@cip/events/contract';
import { ApiExceptionFilter, apiValidationPipe } from '@cip/gateway/http';
import { KYC_API, KYC_OPERATOR_API } from '@cip/kyc/contract';
import { DomainError } from '@cip/shared/contracts';
import { createLogger } from '@cip/shared/runtime';
import { USER_LIFECYCLE_API, USERS_API } from '@cip/users/contract';
import { WALLET_COMPLIANCE_API, WALLETS_API } from '@cip/wallets/contract';
import { WEBHOOKS_API } from '@cip/webhooks/contract';
import request from 'supertest';
import { activeUserWithWallet } from './testing/cardholders';
import { Harness, PRODUCTION_KEY, newUserBody, SANDBOX_KEY, startHarness } from './testing/platform-harness';

// Issue 14: the environment pages' controllers over HTTP (DTOs, the environment in the path, roles, the
// audit of every action), mounted on a Nest app of their own over the running platform's contracts. The
// session guard here only reads a role from a header: signing in, sessions and CSRF are the operator app's
// and are tested there, with these controllers mounted as they are.

/** Stands in for the operator app's session guard: the role from `x-test-role`, refused as it refuses. */
@Injectable()
class HeaderRoleGuard implements CanActivate {
  constructor(private readonly reflector: Reflector) {}
  canActivate(context: ExecutionContext): boolean {
    const request = context
      .switchToHttp()
      .getRequest<{ headers: Record<string, string>; staff?: StaffPrincipal }>();
    const role = request.headers['x-test-role'] as StaffRole | undefined;
    if (!role) throw new DomainError('unauthorized', 'Sign in first');
    const needed = this.reflector.getAllAndOverride<StaffPermission>(STAFF_PERMISSION, [
      context.getHandler(),
      context.getClass(),
    ]);
    if (!needed || !permits(role, needed)) throw new DomainError('forbidden', `A ${role} may not do this`);
    request.staff = { staffId: `stf-${role}`, email: `${role}@example.com`, role, sessionId: 'ses-1' };
    return true;
  }
}

class MemoryAuditTrail implements AuditTrail {
  readonly entries: AuditEntry[] = [];
  async record(staff: StaffPrincipal, input: AuditRecordInput): Promise<AuditEntry> {
    const entry: AuditEntry = {
      id: `aud-${this.entries.length}`,
      at: new Date().toISOString(),
      staff: { id: staff.staffId, email: staff.email, role: staff.role },
      action: input.action,
      environment: input.environment,
      target: input.target,
      userId: input.userId ?? null,
      reason: input.reason ?? null,
      outcome: input.outcome ?? 'succeeded',
      errorCode: input.errorCode ?? null,
    };
    this.entries.push(entry);
    return entry;
  }
}

describe('backoffice environment pages over HTTP', () => {
  let h: Harness;
  let app: NestFastifyApplication;
  const trail = new MemoryAuditTrail();
  const json = { 'content-type': 'application/json' };
  const v1 = (path: string, body: object = {}, key = SANDBOX_KEY) =>
    h.http
      .post(path)
      .set({ 'x-api-key': key, ...json })
      .send(body);
  const as = (role: StaffRole) => ({
    get: (path: string, query: Record<string, string> = {}) =>
      request(app.getHttpServer()).get(`/operator/v1${path}`).query(query).set({ 'x-test-role': role }),
    post: (path: string, body: object = {}) =>
      request(app.getHttpServer())
        .post(`/operator/v1${path}`)
        .set({ 'x-test-role': role, ...json })
        .send(body),
  });

  beforeAll(async () => {
    h = await startHarness();
    const platform = h.platform.app;
    const directory = platform.get(DistributorDirectory);
    const controlPlane: ControlPlaneApi = {
      listDistributors: async () =>
        directory.list().map((d) => ({
          distributorId: d.distributorId,
          name: d.name,
          program: d.program,
          isDefault: d.isDefault,
          createdAt: d.createdAt,
        })),
    };
    const fromPlatform: Provider[] = [
      USERS_API,
      USER_LIFECYCLE_API,
      KYC_API,
      KYC_OPERATOR_API,
      CARDS_API,
      CARD_OPERATIONS_API,
      WALLETS_API,
      WALLET_COMPLIANCE_API,
      AUTHORIZATIONS_API,
      EVENTS_API,
      WEBHOOKS_API,
    ].map((token) => ({ provide: token, useValue: platform.get(token, { strict: false }) }));
    const module = await Test.createTestingModule({
      controllers: ENVIRONMENT_CONTROLLERS,
      providers: [
        ...fromPlatform,
        ...OPERATIONS_PROVIDERS,
        { provide: CONTROL_PLANE_API, useValue: controlPlane },
        { provide: AUDIT_TRAIL, useValue: trail },
      ],
    }).compile();
    app = module.createNestApplication<NestFastifyApplication>(new FastifyAdapter());
    app.useGlobalPipes(apiValidationPipe());
    app.useGlobalFilters(new ApiExceptionFilter(createLogger('silent')));
    app.useGlobalGuards(new HeaderRoleGuard(app.get(Reflector)));
    await app.init();
    await app.getHttpAdapter().getInstance().ready();
  });
  afterAll(async () => {
    await app?.close();
    await h?.close();
  });

  async function cardholder() {
    const holder = await activeUserWithWallet(h);
    const card = await v1('/v1/cards', { userId: holder.userId, type: 'virtual' });
    return { ...holder, cardId: card.body.id as string };
  }

  it('finds a user by email and shows the user page with wallet and cards to a viewer', async () => {
    const holder = await cardholder();
    const found = await as('viewer').get('/sandbox/search', { q: holder.email });
    expect(found.status).toBe(200);
    expect(found.body.users).toEqual([expect.objectContaining({ id: holder.userId })]);
    const page = await as('viewer').get(`/sandbox/users/${holder.userId}`);
    expect(page.status).toBe(200);
    expect(page.body).toMatchObject({
      user: { id: holder.userId },
      wallet: { id: holder.walletId, balance: 0, held: 0, available: 0, complianceHold: null },
      cards: [expect.objectContaining({ id: holder.cardId })],
    });
    expect(JSON.stringify(page.body)).not.toMatch(/"pan"|"cvv/i);
  });

  it('answers an unknown environment and a production id on a sandbox path with 404', async () => {
    const production = await v1('/v1/users', newUserBody(), PRODUCTION_KEY);
    expect((await as('viewer').get(`/sandbox/users/${production.body.id}`)).body.error.code).toBe(
      'not_found',
    );
    expect((await as('viewer').get(`/production/users/${production.body.id}`)).status).toBe(200);
    const staging = await as('viewer').get(`/staging/users/${production.body.id}`);
    expect(staging.status).toBe(404);
    expect(staging.body).toMatchObject({ error: { code: 'not_found' }, requestId: expect.any(String) });
  });

  it('refuses an action without a reason, naming reason, and changes nothing', async () => {
    const { cardId } = await cardholder();
    const refused = await as('support').post(`/sandbox/cards/${cardId}/freeze`, {});
    expect(refused.status).toBe(400);
    expect(refused.body.error).toMatchObject({ code: 'validation_error', details: [{ field: 'reason' }] });
    expect((await as('viewer').get(`/sandbox/cards/${cardId}`)).body.card.status).toBe('active');
    expect(
      (await as('support').post(`/sandbox/cards/${cardId}/freeze`, { reason: 'x'.repeat(501) })).status,
    ).toBe(400);
  });

  it('a viewer gets 403 on every action; a support member on compliance actions; nothing changes', async () => {
    const holder = await cardholder();
    const reason = { reason: 'Ticket 1' };
    const actions: [string, object, StaffRole[]][] = [
      [`/sandbox/cards/${holder.cardId}/freeze`, reason, ['viewer']],
      [`/sandbox/cards/${holder.cardId}/unfreeze`, reason, ['viewer']],
      [`/sandbox/cards/${holder.cardId}/unblock`, reason, ['viewer']],
      [`/sandbox/events/0f8fad5b-d9cb-469f-a165-70867728950e/redeliver`, reason, ['viewer']],
      [
        `/sandbox/kycs/kyc-0f8fad5b-d9cb-469f-a165-70867728950e/review`,
        { ...reason, decision: 'approve' },
        ['viewer', 'support'],
      ],
      [
        `/sandbox/users/${holder.userId}/rfis`,
        { ...reason, rfiSubtype: 'onboarding' },
        ['viewer', 'support'],
      ],
      [`/sandbox/wallets/${holder.walletId}/compliance-hold`, reason, ['viewer', 'support']],
      [`/sandbox/wallets/${holder.walletId}/compliance-hold/release`, reason, ['viewer', 'support']],
      [
        `/sandbox/cards/${holder.cardId}/holds`,
        { ...reason, hold: 'compliance_hold' },
        ['viewer', 'support'],
      ],
      [`/sandbox/cards/${holder.cardId}/holds/compliance_hold/lift`, reason, ['viewer', 'support']],
    ];
    for (const [path, body, roles] of actions)
      for (const role of roles) {
        const refused = await as(role).post(path, body);
        expect({ path, role, status: refused.status, code: refused.body.error?.code }).toEqual({
          path,
          role,
          status: 403,
          code: 'forbidden',
        });
      }
    const page = await as('viewer').get(`/sandbox/users/${holder.userId}`);
    expect(page.body.cards).toEqual([expect.objectContaining({ status: 'active', blocks: [] })]);
    expect(page.body.wallet.complianceHold).toBeNull();
    expect(page.body.kycs).toHaveLength(1);
  });

  it('compliance holds a card, support is refused its unfreeze (409), compliance lifts, support unfreezes; all audited', async () => {
    const { cardId, userId } = await cardholder();
    const held = await as('compliance').post(`/sandbox/cards/${cardId}/holds`, {
      hold: 'compliance_hold',
      reason: 'CMP-118',
    });
    expect(held.status).toBe(200);
    expect(held.body).toMatchObject({ status: 'frozen', blocks: ['compliance_hold'] });
    const refused = await as('support').post(`/sandbox/cards/${cardId}/unfreeze`, { reason: 'Ticket 2' });
    expect(refused.status).toBe(409);
    expect(refused.body.error.code).toBe('card_unfreeze_blocked_error');
    const lifted = await as('compliance').post(`/sandbox/cards/${cardId}/holds/compliance_hold/lift`, {
      reason: 'CMP-118 cleared',
    });
    expect(lifted.body).toMatchObject({ status: 'frozen', blocks: [] });
    const unfrozen = await as('support').post(`/sandbox/cards/${cardId}/unfreeze`, { reason: 'Ticket 2' });
    expect(unfrozen.body).toMatchObject({ status: 'active' });

    expect(trail.entries.filter((entry) => entry.target.id === cardId)).toEqual([
      expect.objectContaining({ action: 'card.hold.place', reason: 'CMP-118', outcome: 'succeeded', userId }),
      expect.objectContaining({
        action: 'card.unfreeze',
        reason: 'Ticket 2',
        outcome: 'refused',
        errorCode: 'card_unfreeze_blocked_error',
        staff: expect.objectContaining({ role: 'support' }),
      }),
      expect.objectContaining({ action: 'card.hold.lift', outcome: 'succeeded', environment: 'sandbox' }),
      expect.objectContaining({ action: 'card.unfreeze', outcome: 'succeeded' }),
    ]);
  });

  it('places and releases a wallet compliance hold; an unknown hold name on a lift is 404', async () => {
    const { walletId, cardId } = await cardholder();
    const held = await as('compliance').post(`/sandbox/wallets/${walletId}/compliance-hold`, {
      reason: 'RFI',
    });
    expect(held.body).toMatchObject({ id: walletId, complianceHold: { reason: 'RFI' } });
    const released = await as('compliance').post(`/sandbox/wallets/${walletId}/compliance-hold/release`, {
      reason: 'RFI answered',
    });
    expect(released.body.complianceHold).toBeNull();
    expect(
      (await as('compliance').post(`/sandbox/cards/${cardId}/holds/travel_hold/lift`, { reason: 'x' }))
        .status,
    ).toBe(404);
  });

  it('validates list queries: limit, cursor, dates and filters', async () => {
    expect((await as('viewer').get('/sandbox/transactions', { limit: '0' })).status).toBe(400);
    expect((await as('viewer').get('/sandbox/transactions', { cursor: 'nope' })).body.error).toMatchObject({
      code: 'validation_error',
      details: [{ field: 'cursor' }],
    });
    expect((await as('viewer').get('/sandbox/transactions', { from: 'yesterday' })).status).toBe(400);
    expect((await as('viewer').get('/sandbox/transactions', { kind: 'gift' })).status).toBe(400);
    expect((await as('viewer').get('/sandbox/cards', {})).status).toBe(400);
    expect((await as('viewer').get('/sandbox/search', {})).status).toBe(400);
    const unknown = { distributorId: 'dst-0f8fad5b-d9cb-469f-a165-70867728950e' };
    expect((await as('viewer').get('/sandbox/transactions', unknown)).body.error.code).toBe('not_found');
    expect((await as('viewer').get('/sandbox/webhook-subscriptions', unknown)).body.error.code).toBe('not_found');
    // Every deposit of the environment (no earlier test of this file deposits), walked
    // two at a time: each once, until nextCursor is null.
    for (const { walletId } of [await cardholder(), await cardholder()])
      for (const amount of [1, 2])
        expect((await v1('/v1/simulate/deposit', { walletId, amount })).status).toBe(201);
    const seen: string[] = [];
    let cursor: string | undefined;
    do {
      const page = await as('viewer').get('/sandbox/transactions', {
        limit: '2',
        kind: 'deposit',
        ...(cursor ? { cursor } : {}),
      });
      expect(page.status).toBe(200);
      expect(page.body.data.length).toBeLessThanOrEqual(2);
      seen.push(...page.body.data.map((item: { id: string }) => item.id));
      cursor = page.body.nextCursor ?? undefined;
    } while (cursor);
    expect(seen).toHaveLength(4);
    expect(new Set(seen).size).toBe(4);
  });
});
