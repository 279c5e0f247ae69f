import { totpCode } from '@cip/backoffice/service';
import { ManualClock } from '@cip/shared/runtime';
import pino from 'pino';
import { withScopeLog } from './testing/cardholders';
import {
  Harness,
  signInOverHttp,
  splitLogLines,
  StaffSession,
  startHarness,
} from './testing/platform-harness';
import { e2eTopology, itOnOneProcess } from './testing/topology';

// Issue 14: staff sign-in with a second factor, sessions, CSRF and roles of the operator API, over HTTP on
// the operator app (DASHBOARD_PORT: the one-process platform's, or the dashboard process of the split
// topology), on the test's clock (on the split topology every process reads it).

describe('backoffice: staff sign-in, sessions, CSRF and roles', () => {
  let h: Harness;
  let admin: StaffSession;
  const clock = new ManualClock(new Date());
  const logLines: string[] = [];

  // Every line the platform logs, at trace: the test's logger on the one-process platform, each process's
  // log file on the split topology (`splitLogLines`).
  const start = async (dataDir?: string) => {
    h = await startHarness(
      e2eTopology() === 'split'
        ? { clock, dataDir, splitLogLevel: 'trace' }
        : {
            clock,
            dataDir,
            logger: pino({ level: 'trace' }, { write: (line: string) => void logLines.push(line) }),
          },
    );
  };
  beforeAll(async () => {
    await start();
    admin = await h.signInStaff('admin');
  });
  afterAll(() => h.close());

  const nextStep = () => clock.advance(30_000);
  const origin = () => h.dashboardUrl;
  const signIn = (body: object) =>
    h.operatorHttp.post('/operator/v1/session').set('origin', origin()).send(body);
  const audit = async (query: Record<string, string>) =>
    (await h.operatorHttp.get('/operator/v1/audit').query(query).set('cookie', admin.cookie).expect(200)).body
      .data;

  it('signs in with email, password and TOTP code, and answers the session with its CSRF token', async () => {
    const session = await h.operatorHttp.get('/operator/v1/session').set('cookie', admin.cookie).expect(200);
    expect(session.body).toEqual({
      staff: expect.objectContaining({
        id: admin.staffId,
        email: admin.email,
        role: 'admin',
        status: 'active',
      }),
      csrfToken: admin.csrfToken,
    });
    expect(session.headers['cache-control']).toBe('no-store');
  });

  it('sets the session cookie HttpOnly, Secure, SameSite=Strict on /operator', async () => {
    nextStep();
    const answer = await signIn({
      email: admin.email,
      password: admin.password,
      code: totpCode(admin.totpSecret, clock.now()),
    }).expect(200);
    const cookie = ([] as string[])
      .concat(answer.headers['set-cookie'] ?? [])
      .find((c) => c.startsWith('cip_staff_session='));
    expect(cookie).toMatch(/HttpOnly/i);
    expect(cookie).toMatch(/Secure/i);
    expect(cookie).toMatch(/SameSite=Strict/i);
    expect(cookie).toMatch(/Path=\/operator/);
  });

  it('answers one message for a wrong password, a wrong code and an unknown email', async () => {
    const viewer = await h.signInStaff('viewer');
    nextStep();
    const code = totpCode(viewer.totpSecret, clock.now());
    const wrongPassword = await signIn({ email: viewer.email, password: 'not the password!', code }).expect(
      401,
    );
    const wrongCode = await signIn({
      email: viewer.email,
      password: viewer.password,
      code: code === '000000' ? '111111' : '000000',
    }).expect(401);
    const unknown = await signIn({ email: 'nobody@example.com', password: viewer.password, code }).expect(
      401,
    );
    for (const answer of [wrongPassword, wrongCode, unknown]) {
      expect(answer.body.error).toEqual({
        code: 'invalid_credentials',
        message: wrongPassword.body.error.message,
      });
      expect(answer.headers['set-cookie']).toBeUndefined();
    }
  });

  it('refuses a TOTP code used before (replay)', async () => {
    const support = await h.signInStaff('support');
    // The code of the sign-in the helper just made, again.
    const replay = await signIn({
      email: support.email,
      password: support.password,
      code: totpCode(support.totpSecret, clock.now()),
    });
    expect(replay.status).toBe(401);
    expect(replay.body.error.code).toBe('invalid_credentials');
  });

  // Issue 38: the lockout answered only for existing emails, which told them from unknown ones.
  it('answers the same wrong sign-ins the same for an existing and an unknown email, lockout included', async () => {
    const member = await h.signInStaff('viewer');
    // Both sequences at the same instant of the test clock: the lockout ends at the same time too.
    const sequence = async (email: string) => {
      const answers: object[] = [];
      for (let attempt = 1; attempt <= 7; attempt++) {
        const answer = await signIn({ email, password: `wrong password ${attempt}`, code: '123456' });
        const { requestId: _requestId, ...error } = answer.body.error ?? {};
        answers.push({
          status: answer.status,
          error,
          retryAfter: answer.headers['retry-after'],
          cookie: answer.headers['set-cookie'],
        });
      }
      return answers;
    };
    const existing = await sequence(member.email);
    const unknown = await sequence('no.such.staff@example.com');
    expect(existing.map((answer) => (answer as { status: number }).status)).toEqual([
      401, 401, 401, 401, 401, 423, 423,
    ]);
    expect(unknown).toEqual(existing);
  });

  it('locks an account after 5 failures in a row (423 with retry-after), and an admin unlocks it', async () => {
    const member = await h.signInStaff('compliance');
    for (let attempt = 1; attempt <= 5; attempt++) {
      await signIn({ email: member.email, password: 'wrong password!!', code: '123456' }).expect(401);
    }
    nextStep();
    const locked = await signIn({
      email: member.email,
      password: member.password,
      code: totpCode(member.totpSecret, clock.now()),
    }).expect(423);
    expect(locked.body.error.code).toBe('account_locked');
    expect(Number(locked.headers['retry-after'])).toBeGreaterThan(0);
    const listed = await h.operatorHttp.get('/operator/v1/staff').set('cookie', admin.cookie).expect(200);
    expect(listed.body.data.find((s: { id: string }) => s.id === member.staffId).lockedUntil).not.toBeNull();

    await h.operatorHttp
      .post(`/operator/v1/staff/${member.staffId}/unlock`)
      .set(admin.headers)
      .send({ reason: 'TICKET-77' })
      .expect(200);
    await signIn({
      email: member.email,
      password: member.password,
      code: totpCode(member.totpSecret, clock.now()),
    }).expect(200);

    const actions = (await audit({ targetId: member.staffId })).map(
      (e: { action: string; outcome: string }) => `${e.action}:${e.outcome}`,
    );
    expect(actions).toEqual(
      expect.arrayContaining(['staff.lockout:succeeded', 'staff.unlock:succeeded', 'session.signIn:refused']),
    );
  });

  it('never promotes a cookie sent before sign-in (session fixation)', async () => {
    const member = await h.signInStaff('viewer');
    nextStep();
    const planted = 'cip_staff_session=AttackerChosenValueAttackerChosenValueAAAAAAA';
    const answer = await signIn({
      email: member.email,
      password: member.password,
      code: totpCode(member.totpSecret, clock.now()),
    })
      .set('cookie', planted)
      .expect(200);
    const issued = ([] as string[])
      .concat(answer.headers['set-cookie'] ?? [])
      .find((c) => c.startsWith('cip_staff_session='));
    expect(issued?.split(';')[0]).not.toBe(planted);
    await h.operatorHttp.get('/operator/v1/session').set('cookie', planted).expect(401);
    await h.operatorHttp
      .get('/operator/v1/session')
      .set('cookie', issued?.split(';')[0] ?? '')
      .expect(200);
  });

  describe('CSRF: a change needs the session token and the same origin, else 403 and nothing changes', () => {
    const invite = (headers: Record<string, string>) =>
      h.operatorHttp
        .post('/operator/v1/staff')
        .set(headers)
        .send({ email: `csrf-${Math.random()}@example.com`, name: 'X', role: 'viewer' });
    const staffCount = async () =>
      (await h.operatorHttp.get('/operator/v1/staff').set('cookie', admin.cookie).expect(200)).body.data
        .length;

    it.each([
      ['no token', () => ({ cookie: admin.cookie, origin: origin() })],
      ['a wrong token', () => ({ ...admin.headers, 'x-csrf-token': 'A'.repeat(43) })],
      ['another origin', () => ({ ...admin.headers, origin: 'https://evil.example' })],
      ['a cross-site fetch', () => ({ ...admin.headers, 'sec-fetch-site': 'cross-site' })],
      ['no origin at all', () => ({ cookie: admin.cookie, 'x-csrf-token': admin.csrfToken })],
    ])('%s', async (_, headers) => {
      const before = await staffCount();
      const answer = await invite(headers()).expect(403);
      expect(answer.body.error.code).toBe('csrf_failed');
      expect(await staffCount()).toBe(before);
    });

    it("another session's token does not work", async () => {
      const other = await h.signInStaff('admin');
      const answer = await invite({ ...admin.headers, 'x-csrf-token': other.csrfToken }).expect(403);
      expect(answer.body.error.code).toBe('csrf_failed');
    });
  });

  it('refuses every change to a viewer (403 forbidden) and answers 401 without a session', async () => {
    const viewer = await h.signInStaff('viewer');
    const changes = [
      h.operatorHttp
        .post('/operator/v1/staff')
        .set(viewer.headers)
        .send({ email: 'v@example.com', name: 'V', role: 'admin' }),
      h.operatorHttp
        .post(`/operator/v1/staff/${admin.staffId}/role`)
        .set(viewer.headers)
        .send({ role: 'viewer', reason: 'X-1' }),
      h.operatorHttp
        .post(`/operator/v1/staff/${admin.staffId}/disable`)
        .set(viewer.headers)
        .send({ reason: 'X-1' }),
      h.operatorHttp
        .post(`/operator/v1/staff/${admin.staffId}/unlock`)
        .set(viewer.headers)
        .send({ reason: 'X-1' }),
    ];
    for (const answer of await Promise.all(changes)) {
      expect(answer.status).toBe(403);
      expect(answer.body.error.code).toBe('forbidden');
    }
    await h.operatorHttp.get('/operator/v1/staff').set('cookie', viewer.cookie).expect(403);
    await h.operatorHttp.get('/operator/v1/audit').set('cookie', viewer.cookie).expect(200);
    const none = await h.operatorHttp.get('/operator/v1/audit').expect(401);
    expect(none.body.error.code).toBe('unauthorized');
    const refused = await audit({
      staffId: viewer.staffId,
      action: `POST /operator/v1/staff/:staffId/disable`,
    });
    expect(refused[0]).toMatchObject({ outcome: 'refused', errorCode: 'forbidden' });
  });

  it('asks a reason for a status change (400 naming reason)', async () => {
    const member = await h.signInStaff('viewer');
    const answer = await h.operatorHttp
      .post(`/operator/v1/staff/${member.staffId}/disable`)
      .set(admin.headers)
      .send({})
      .expect(400);
    expect(answer.body.error.details).toEqual(
      expect.arrayContaining([expect.objectContaining({ field: 'reason' })]),
    );
  });

  it('signs out one session, and signs out everywhere', async () => {
    const member = await h.signInStaff('support');
    nextStep();
    const second = await signInOverHttp(h.operatorHttp, origin(), {
      email: member.email,
      password: member.password,
      code: totpCode(member.totpSecret, clock.now()),
    });
    await h.operatorHttp.delete('/operator/v1/session').set(second.headers).expect(204);
    await h.operatorHttp.get('/operator/v1/session').set('cookie', second.cookie).expect(401);
    await h.operatorHttp.get('/operator/v1/session').set('cookie', member.cookie).expect(200);

    nextStep();
    const third = await signInOverHttp(h.operatorHttp, origin(), {
      email: member.email,
      password: member.password,
      code: totpCode(member.totpSecret, clock.now()),
    });
    await h.operatorHttp.post('/operator/v1/session/revoke-all').set(third.headers).expect(204);
    await h.operatorHttp.get('/operator/v1/session').set('cookie', member.cookie).expect(401);
    await h.operatorHttp.get('/operator/v1/session').set('cookie', third.cookie).expect(401);
    const actions = (await audit({ staffId: member.staffId })).map((e: { action: string }) => e.action);
    expect(actions).toEqual(
      expect.arrayContaining(['session.signOut', 'session.revokeAll', 'session.signIn']),
    );
  });

  it('ends a session idle for 30 minutes, and disabling ends every session', async () => {
    const member = await h.signInStaff('viewer');
    clock.advance(29 * 60_000);
    await h.operatorHttp.get('/operator/v1/session').set('cookie', member.cookie).expect(200);
    clock.advance(29 * 60_000);
    await h.operatorHttp.get('/operator/v1/session').set('cookie', member.cookie).expect(200);
    clock.advance(30 * 60_000);
    await h.operatorHttp.get('/operator/v1/session').set('cookie', member.cookie).expect(401);
    await h.operatorHttp.get('/operator/v1/session').set('cookie', admin.cookie).expect(401);
    admin = await h.signInStaff('admin');

    const other = await h.signInStaff('support');
    await h.operatorHttp
      .post(`/operator/v1/staff/${other.staffId}/disable`)
      .set(admin.headers)
      .send({ reason: 'LEFT-1' })
      .expect(200);
    await h.operatorHttp.get('/operator/v1/session').set('cookie', other.cookie).expect(401);
    nextStep();
    await signIn({
      email: other.email,
      password: other.password,
      code: totpCode(other.totpSecret, clock.now()),
    }).expect(401);
  });

  it('ends a session 12 hours after sign-in, however active', async () => {
    const member = await h.signInStaff('viewer');
    for (let elapsed = 0; elapsed + 29 < 12 * 60; elapsed += 29) {
      await h.operatorHttp.get('/operator/v1/session').set('cookie', member.cookie).expect(200);
      clock.advance(29 * 60_000);
    }
    clock.advance(29 * 60_000);
    await h.operatorHttp.get('/operator/v1/session').set('cookie', member.cookie).expect(401);
    admin = await h.signInStaff('admin');
  });

  it('ends a lockout after 15 minutes without an unlock', async () => {
    const member = await h.signInStaff('support');
    for (let attempt = 1; attempt <= 5; attempt++) {
      await signIn({ email: member.email, password: 'wrong password!!', code: '123456' }).expect(401);
    }
    clock.advance(14 * 60_000);
    await signIn({
      email: member.email,
      password: member.password,
      code: totpCode(member.totpSecret, clock.now()),
    }).expect(423);
    clock.advance(60_000);
    await signIn({
      email: member.email,
      password: member.password,
      code: totpCode(member.totpSecret, clock.now()),
    }).expect(200);
  });

  it('invites over the API: the link works once, for 72 hours, and asks the current code', async () => {
    const invited = await h.operatorHttp
      .post('/operator/v1/staff')
      .set(admin.headers)
      .send({ email: `new-${Date.now()}@example.com`, name: 'New Staff', role: 'compliance' })
      .expect(201);
    expect(invited.body.staff).toMatchObject({ role: 'compliance', status: 'invited' });
    const token = new URL(invited.body.invitation.url).pathname.split('/').pop();
    expect(invited.body.invitation.url.startsWith(`${h.dashboardUrl}/invitations/`)).toBe(true);
    const pending = await h.operatorHttp.get(`/operator/v1/invitations/${token}`).expect(200);
    const secret: string = pending.body.totp.secret;
    expect(pending.body.totp.uri).toMatch(/^otpauth:\/\/totp\//);
    const accept = (body: object) =>
      h.operatorHttp.post(`/operator/v1/invitations/${token}/accept`).set('origin', origin()).send(body);
    const wrongCode = await accept({
      password: 'long enough password',
      code: totpCode(secret, new Date(clock.now().getTime() - 10 * 60_000)),
    }).expect(400);
    expect(wrongCode.body.error.details).toEqual([expect.objectContaining({ field: 'code' })]);
    const short = await accept({ password: 'short', code: totpCode(secret, clock.now()) }).expect(400);
    expect(short.body.error.details).toEqual([expect.objectContaining({ field: 'password' })]);
    await accept({ password: 'long enough password', code: totpCode(secret, clock.now()) }).expect(200);
    await h.operatorHttp.get(`/operator/v1/invitations/${token}`).expect(404);
    await accept({ password: 'long enough password', code: totpCode(secret, clock.now()) }).expect(404);

    const late = await h.operatorHttp
      .post('/operator/v1/staff')
      .set(admin.headers)
      .send({ email: `late-${Date.now()}@example.com`, name: 'Late', role: 'viewer' })
      .expect(201);
    const lateToken = new URL(late.body.invitation.url).pathname.split('/').pop();
    clock.advance(72 * 60 * 60_000);
    await h.operatorHttp.get(`/operator/v1/invitations/${lateToken}`).expect(404);
    admin = await h.signInStaff('admin');
    const duplicate = await h.operatorHttp
      .post('/operator/v1/staff')
      .set(admin.headers)
      .send({ email: invited.body.staff.email.toUpperCase(), name: 'Again', role: 'viewer' })
      .expect(409);
    expect(duplicate.body.error.code).toBe('invalid_state_transition');
  });

  it('records who, what, why and outcome in the audit trail, newest first, cursor-paged', async () => {
    const member = await h.signInStaff('viewer');
    await h.operatorHttp
      .post(`/operator/v1/staff/${member.staffId}/role`)
      .set(admin.headers)
      .send({ role: 'support', reason: 'TICKET-9' })
      .expect(200);
    const [latest] = await audit({ targetId: member.staffId, action: 'staff.changeRole' });
    expect(latest).toMatchObject({
      staff: { id: admin.staffId, email: admin.email, role: 'admin' },
      action: 'staff.changeRole',
      environment: null,
      target: { type: 'staff', id: member.staffId },
      reason: 'TICKET-9',
      outcome: 'succeeded',
      errorCode: null,
    });
    const first = await h.operatorHttp
      .get('/operator/v1/audit')
      .query({ limit: '2' })
      .set('cookie', admin.cookie)
      .expect(200);
    expect(first.body.data).toHaveLength(2);
    const second = await h.operatorHttp
      .get('/operator/v1/audit')
      .query({ limit: '2', cursor: first.body.nextCursor })
      .set('cookie', admin.cookie)
      .expect(200);
    expect(Date.parse(second.body.data[0].at)).toBeLessThanOrEqual(Date.parse(first.body.data[1].at));
    expect(second.body.data.map((e: { id: string }) => e.id)).not.toContain(first.body.data[1].id);
  });

  it('keeps passwords, TOTP secrets, session ids and CSRF tokens out of events and logs', async () => {
    const member = await h.signInStaff('viewer');
    const events = await withScopeLog(h, 'control', (control) =>
      control.storedEventStore.readAll({ after: 0, maxCount: 100_000 }),
    );
    const log = JSON.stringify(events) + (h.topology === 'split' ? splitLogLines(h) : logLines).join('');
    const sessionValue = member.cookie.split('=')[1];
    for (const secret of [
      member.password,
      member.totpSecret,
      sessionValue,
      member.csrfToken,
      admin.password,
      admin.totpSecret,
    ]) {
      expect(log).not.toContain(secret);
    }
    expect(log).toContain(member.staffId);
  });

  it('serves its OpenAPI document, its docs page and the dashboard with security headers', async () => {
    const document = await h.operatorHttp.get('/operator/v1/openapi.json').expect(200);
    expect(document.body.openapi).toBe('3.1.0');
    expect(Object.keys(document.body.paths)).toEqual(
      expect.arrayContaining(['/operator/v1/session', '/operator/v1/audit']),
    );
    await h.operatorHttp.get('/operator/v1/docs').expect(200);
    // A client route of the dashboard: the built app's page (dist/apps/dashboard-web), whatever the path.
    const page = await h.operatorHttp.get('/users/usr-1').expect(200);
    expect(page.text).toContain('<title>Card issuing backoffice</title>');
    expect(page.headers['content-security-policy']).toContain("script-src 'self'");
    expect(page.headers['content-security-policy']).not.toMatch(/script-src[^;]*unsafe-inline/);
    expect(page.headers['x-frame-options']).toBe('DENY');
    expect(page.headers['referrer-policy']).toBe('no-referrer');
    const unknown = await h.operatorHttp.get('/operator/v1/nothing-here').expect(404);
    expect(unknown.body.error.code).toBe('not_found');
  });

  // Last: it restarts the platform (every process on the split topology) on the same data directory.
  it('keeps sessions across a restart of the platform', async () => {
    const staff = await h.signInStaff('support');
    await h.close({ keepData: true });
    await start(h.dataDir);
    const session = await h.operatorHttp.get('/operator/v1/session').set('cookie', staff.cookie).expect(200);
    expect(session.body).toMatchObject({
      staff: { id: staff.staffId, role: 'support' },
      csrfToken: staff.csrfToken,
    });
  });
});

describe('backoffice: the operator app', () => {
  itOnOneProcess(
    'a dashboard directory of its own: the dashboard process serves dist/apps/dashboard-web, no setting moves it',
    'says the dashboard was not built when its files are missing, with the security headers',
    async () => {
      const h = await startHarness({ dashboardDir: '/nonexistent/dashboard-web' });
      try {
        const page = await h.operatorHttp.get('/users/usr-1').expect(200);
        expect(page.text).toContain('dashboard was not built');
        expect(page.headers['content-security-policy']).toContain("script-src 'self'");
        expect(page.headers['content-security-policy']).not.toMatch(/script-src[^;]*unsafe-inline/);
        expect(page.headers['x-frame-options']).toBe('DENY');
        expect(page.headers['referrer-policy']).toBe('no-referrer');
      } finally {
        await h.close();
      }
    },
  );
});
