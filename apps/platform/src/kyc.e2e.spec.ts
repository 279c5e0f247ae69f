import { ConsumerHost } from '@cip/shared/infrastructure';
import { ManualClock } from '@cip/shared/runtime';
import { waitFor } from '@cip/shared/testing';
import request from 'supertest';
import { Harness, newUserBody, PRODUCTION_KEY, SANDBOX_KEY, startHarness } from './testing/platform-harness';

const DAY = 24 * 60 * 60 * 1000;
const json = { 'content-type': 'application/json' };
const sandbox = { 'x-api-key': SANDBOX_KEY };

const identityForm = {
  firstName: 'Ada',
  lastName: 'Lovelace',
  dateOfBirth: '1990-12-10',
  addressLine1: '10 rue de Rivoli',
  city: 'Paris',
  postalCode: '75001',
  country: 'FR',
  documentNumber: 'X1234567',
};

describe('KYC over /v1 and the hosted page, as a distributor and its user meet them', () => {
  let h: Harness;
  // The expiry tests move the platform's clock (on the split topology, every process reads it).
  const clock = new ManualClock('2026-03-01T09:00:00.000Z');

  beforeAll(async () => {
    h = await startHarness({ clock });
  });
  afterAll(async () => {
    await h.close();
  });

  const createUser = async (key = SANDBOX_KEY, body = newUserBody()) => {
    const response = await h.http
      .post('/v1/users')
      .set({ 'x-api-key': key, ...json })
      .send(body);
    expect(response.status).toBe(201);
    return response.body.id as string;
  };
  const startKyc = (body: Record<string, unknown>, key = SANDBOX_KEY) =>
    h.http
      .put('/v1/kycs')
      .set({ 'x-api-key': key, ...json })
      .send(body);
  const getKyc = (kycId: string, key = SANDBOX_KEY) =>
    h.http.get(`/v1/kycs/${kycId}`).set({ 'x-api-key': key });
  const getUser = async (userId: string) => (await h.http.get(`/v1/users/${userId}`).set(sandbox)).body;
  const simulate = (kycId: string, outcome: string, body: Record<string, unknown> = {}, key = SANDBOX_KEY) =>
    h.http
      .post(`/v1/simulate/kyc/${kycId}/${outcome}`)
      .set({ 'x-api-key': key, ...json })
      .send(body);
  const resume = (kycId: string) => h.http.post(`/v1/kycs/${kycId}/resume`).set(sandbox);
  const eventsOf = async (query: Record<string, string>) =>
    (
      await h.http
        .get('/v1/events')
        .query({ limit: 100, sortBy: 'createdAt', ...query })
        .set(sandbox)
    ).body.items;

  /** The user's side: open the link in a "browser" (the page sets its form cookie) and submit the form. */
  const openLink = async (url: string) => {
    const { pathname } = new URL(url);
    const page = await request(h.url).get(pathname);
    const csrf = /name="csrf" value="([^"]+)"/.exec(page.text)?.[1];
    const cookie = (page.headers['set-cookie'] as unknown as string[] | undefined)?.[0]?.split(';')[0];
    return { page, pathname, csrf, cookie };
  };
  const submitForm = async (url: string, fields: Record<string, string>) => {
    const { pathname, csrf, cookie } = await openLink(url);
    return request(h.url)
      .post(pathname)
      .set({ cookie: cookie ?? '', 'content-type': 'application/x-www-form-urlencoded' })
      .send(new URLSearchParams({ ...fields, csrf: csrf ?? '' }).toString());
  };

  const startFull = async (userId?: string) => {
    const response = await startKyc({ userId: userId ?? (await createUser()), type: 'full' });
    expect(response.status).toBe(201);
    return response.body;
  };

  describe('integration order, steps 2 and 3: create a user, verify it, the user is active', () => {
    it('starts a hosted KYC, the user fills in the page, review approves, the user is activated', async () => {
      const userId = await createUser();
      const started = await startKyc({ userId, type: 'full' });
      expect(started.status).toBe(201);
      expect(started.body).toMatchObject({
        userId,
        type: 'full',
        status: 'pending',
        provider: 'sandbox-idv',
        access: { url: expect.stringMatching(new RegExp(`^${h.url}/hosted/kyc/kyc-`)) },
      });
      expect(started.body.id).toMatch(/^kyc-[0-9a-f-]{36}$/);
      expect(started.body.referenceId).toEqual(expect.any(String));
      expect(started.body).not.toHaveProperty('rfiSubtype');
      expect(started.headers.location).toBe(`/v1/kycs/${started.body.id}`);
      const kycId = started.body.id;

      const read = await getKyc(kycId);
      expect(read.status).toBe(200);
      expect(read.body).toEqual(started.body);

      const { page } = await openLink(read.body.access.url);
      expect(page.status).toBe(200);
      expect(page.headers['content-type']).toContain('text/html');
      expect(page.text).toContain('Verify your identity');
      expect(page.text).toContain('name="documentNumber"');

      const submitted = await submitForm(read.body.access.url, identityForm);
      expect(submitted.status).toBe(200);
      expect(submitted.text).toContain('Thank you');

      const completed = await getKyc(kycId);
      expect(completed.body).toMatchObject({ status: 'completed', access: null });
      expect((await getUser(userId)).status).toBe('onboarding');
      // The user does not re-enter the form: the link is dead once submitted.
      expect((await request(h.url).get(new URL(read.body.access.url).pathname)).status).toBe(410);

      const approved = await simulate(kycId, 'approve');
      expect(approved.status).toBe(200);
      expect(approved.body).toMatchObject({ status: 'verified', userActivated: true });
      expect(approved.body).not.toHaveProperty('userNotActivatedReason');
      expect((await getUser(userId)).status).toBe('active');

      // Step 4 of the integration order can follow at once: the activated user has its wallet.
      const wallets = await h.http.get('/v1/wallets').query({ userId }).set(sandbox);
      expect(wallets.body.items).toEqual([expect.objectContaining({ userId, currency: 'USDC', balance: 0 })]);

      const kycEvents = (await eventsOf({ userId })).filter(
        (e: { eventName: string }) => !e.eventName.startsWith('wallet.'),
      );
      expect(kycEvents.map((e: { eventName: string }) => e.eventName)).toEqual([
        'user.created',
        'kyc.created',
        'kyc.pending',
        'kyc.completed',
        'user.activated',
        'kyc.verified',
      ]);
      const byName = (name: string) => kycEvents.find((e: { eventName: string }) => e.eventName === name);
      expect(byName('kyc.created')).toMatchObject({
        eventTargetId: kycId,
        userId,
        data: {
          type: 'full',
          status: 'pending',
          provider: 'sandbox-idv',
          referenceId: started.body.referenceId,
        },
      });
      expect(byName('kyc.completed').data).toMatchObject({ type: 'full', status: 'completed' });
      expect(byName('kyc.verified').data).toMatchObject({ status: 'verified', userActivated: true });
      // The link is never part of an Event: the client retrieves the KYC to get it.
      expect(JSON.stringify(kycEvents)).not.toContain('/hosted/kyc/');

      const listed = await h.http.get('/v1/kycs').query({ userId }).set(sandbox);
      expect(listed.body).toEqual({ page: 0, count: 1, hasMore: false, items: [approved.body] });
    });

    it('shows the errors of an invalid form on the page, escaped, and changes nothing', async () => {
      const kyc = await startFull();
      const response = await submitForm(kyc.access.url, {
        ...identityForm,
        firstName: '<script>alert(1)</script>',
        dateOfBirth: '2020-02-30',
        country: 'France',
        city: '',
      });
      expect(response.status).toBe(422);
      expect(response.text).toContain('Please correct the 3 fields');
      expect(response.text).toContain('Enter a date as YYYY-MM-DD');
      expect(response.text).toContain('Enter your city');
      expect(response.text).toContain('&lt;script&gt;alert(1)&lt;/script&gt;');
      expect(response.text).not.toContain('<script>');
      expect((await getKyc(kyc.id)).body.status).toBe('pending');
    });

    it('refuses a form post that does not carry the page token (cross-site submission)', async () => {
      const kyc = await startFull();
      const { pathname } = new URL(kyc.access.url);
      const forged = await request(h.url)
        .post(pathname)
        .set({ 'content-type': 'application/x-www-form-urlencoded' })
        .send(new URLSearchParams({ ...identityForm, csrf: 'guess' }).toString());
      expect(forged.status).toBe(403);
      expect((await getKyc(kyc.id)).body.status).toBe('pending');
    });

    it("refuses the page token of another link, even with that link's cookie", async () => {
      const attackers = await startFull();
      const victims = await startFull();
      // The attacker opens their own link and replays its cookie and token against the victim's link.
      const { csrf, cookie } = await openLink(attackers.access.url);
      const replayed = await request(h.url)
        .post(new URL(victims.access.url).pathname)
        .set({ cookie: cookie ?? '', 'content-type': 'application/x-www-form-urlencoded' })
        .send(new URLSearchParams({ ...identityForm, csrf: csrf ?? '' }).toString());
      expect(replayed.status).toBe(403);
      expect((await getKyc(victims.id)).body.status).toBe('pending');
    });

    it('refuses a post whose Origin is another site, even without Fetch metadata', async () => {
      const kyc = await startFull();
      const { pathname, csrf, cookie } = await openLink(kyc.access.url);
      const post = (origin: string) =>
        request(h.url)
          .post(pathname)
          .set({ cookie: cookie ?? '', origin, 'content-type': 'application/x-www-form-urlencoded' })
          .send(new URLSearchParams({ ...identityForm, csrf: csrf ?? '' }).toString());
      expect((await post('https://evil.example')).status).toBe(403);
      expect((await post(`http://evil.example:${new URL(h.url).port}`)).status).toBe(403);
      expect((await getKyc(kyc.id)).body.status).toBe('pending');
      // The same form from the page's own origin goes through.
      expect((await post(new URL(h.url).origin)).status).toBe(200);
      expect((await getKyc(kyc.id)).body.status).toBe('completed');
    });

    it('answers a forged or unknown link with the dead-link page', async () => {
      const kyc = await startFull();
      const forged = `${new URL(kyc.access.url).pathname.slice(0, -4)}AAAA`;
      const response = await request(h.url).get(forged);
      expect(response.status).toBe(410);
      expect(response.text).toContain('This link has expired or is no longer valid');
      expect((await request(h.url).get('/hosted/kyc/nonsense')).status).toBe(410);
    });

    it('accepts form posts on the hosted pages only: the API stays JSON', async () => {
      const response = await h.http
        .post('/v1/users')
        .set({ ...sandbox, 'content-type': 'application/x-www-form-urlencoded' })
        .send('email=a@b.c');
      expect(response.status).toBe(415);
    });
  });

  describe('review outcomes and activation', () => {
    it('declines with a code from the spec list, and refuses a code outside it', async () => {
      const kyc = await startFull();
      await simulate(kyc.id, 'complete');
      expect((await simulate(kyc.id, 'decline', { declinedCode: 'selfie' })).status).toBe(400);
      const declined = await simulate(kyc.id, 'decline', { declinedCode: 'dateofBirth' });
      expect(declined.body).toMatchObject({ status: 'declined', declinedCode: 'dateofBirth' });
      const [event] = await eventsOf({ userId: kyc.userId, eventName: 'kyc.declined' });
      expect(event.data).toMatchObject({ status: 'declined', declinedCode: 'dateofBirth', type: 'full' });
      expect((await getUser(kyc.userId)).status).toBe('onboarding');
    });

    it('does not activate a user with an earlier declined verification, and says why', async () => {
      const first = await startFull();
      await simulate(first.id, 'complete');
      await simulate(first.id, 'decline', { declinedCode: 'identity' });
      const second = await startFull(first.userId);
      await simulate(second.id, 'complete');
      const verified = await simulate(second.id, 'approve');
      expect(verified.body).toMatchObject({
        status: 'verified',
        userActivated: false,
        userNotActivatedReason: 'previousKycDeclined',
      });
      expect((await getUser(first.userId)).status).toBe('onboarding');
      const [event] = await eventsOf({ userId: first.userId, eventName: 'kyc.verified' });
      expect(event.data).toMatchObject({
        userActivated: false,
        userNotActivatedReason: 'previousKycDeclined',
      });
    });

    it('declines with prohibitedCountry when the program no longer allows the user country', async () => {
      const other = await h.newDistributor({ allowedCountries: ['FR', 'DE'] });
      const userId = await createUser(other.sandboxKey, newUserBody({ countryOfResidence: 'DE' }));
      const kyc = (await startKyc({ userId, type: 'light' }, other.sandboxKey)).body;
      await simulate(kyc.id, 'complete', {}, other.sandboxKey);
      await h.operatorHttp
        .patch(`/operator/v1/distributors/${other.distributorId}/program`)
        .set((await h.operatorAdmin()).headers)
        .send({ countries: ['FR'], reason: 'e2e' })
        .expect(200);
      const outcome = await simulate(kyc.id, 'approve', {}, other.sandboxKey);
      expect(outcome.body).toMatchObject({ status: 'declined', declinedCode: 'prohibitedCountry' });
      const user = await h.http.get(`/v1/users/${userId}`).set({ 'x-api-key': other.sandboxKey });
      expect(user.body.status).toBe('onboarding');
    });

    it('refuses to review a KYC the user has not submitted, and a second final outcome', async () => {
      const kyc = await startFull();
      const early = await simulate(kyc.id, 'approve');
      expect(early.status).toBe(409);
      expect(early.body.error.code).toBe('invalid_state_transition');
      await simulate(kyc.id, 'complete');
      expect((await simulate(kyc.id, 'approve')).status).toBe(200);
      expect((await simulate(kyc.id, 'approve')).body.status).toBe('verified');
      expect((await simulate(kyc.id, 'decline')).status).toBe(409);
      expect((await simulate(kyc.id, 'fail')).status).toBe(409);
    });

    it('fails a KYC on a processing failure (kyc.failed)', async () => {
      const kyc = await startFull();
      expect((await simulate(kyc.id, 'fail')).body).toMatchObject({ status: 'failed', access: null });
      expect(await eventsOf({ userId: kyc.userId, eventName: 'kyc.failed' })).toHaveLength(1);
    });

    it('revokes the pending KYC of the same type when a new one is started (kyc.revoked)', async () => {
      const first = await startFull();
      const second = await startFull(first.userId);
      expect((await getKyc(first.id)).body).toMatchObject({ status: 'revoked', access: null });
      expect((await request(h.url).get(new URL(first.access.url).pathname)).status).toBe(410);
      expect((await getKyc(second.id)).body.status).toBe('pending');
      expect(await eventsOf({ userId: first.userId, eventName: 'kyc.revoked' })).toHaveLength(1);
    });

    it('leaves one pending KYC of a type when starts for the same user come at once (a double click)', async () => {
      const userId = await createUser();
      const started = await Promise.all(Array.from({ length: 10 }, () => startKyc({ userId, type: 'full' })));
      expect(started.map((response) => response.status)).toEqual(Array(10).fill(201));
      const statuses = await Promise.all(
        started.map(async ({ body }) => (await getKyc(body.id)).body.status),
      );
      expect(statuses.filter((status) => status === 'pending')).toHaveLength(1);
      expect(statuses.filter((status) => status === 'revoked')).toHaveLength(9);
    });
  });

  describe('link expiry after 14 days, and resume', () => {
    it('expires a link 14 days after creation, not a millisecond before, then resumes it with a new link', async () => {
      const kyc = await startFull();

      clock.advance(14 * DAY - 1);
      await h.sweepDue('kyc');
      expect((await getKyc(kyc.id)).body.status).toBe('pending');
      const early = await resume(kyc.id);
      expect(early.status).toBe(409);
      expect(early.body.error.code).toBe('kyc_resume_not_allowed_error');

      clock.advance(1);
      expect((await request(h.url).get(new URL(kyc.access.url).pathname)).status).toBe(410);
      await h.sweepDue('kyc');
      expect((await getKyc(kyc.id)).body).toMatchObject({ status: 'expired', access: null });
      const [expired] = await eventsOf({ userId: kyc.userId, eventName: 'kyc.expired' });
      expect(expired.data).toMatchObject({ status: 'expired', type: 'full' });

      const resumed = await resume(kyc.id);
      expect(resumed.status).toBe(200);
      expect(resumed.body).toMatchObject({
        id: kyc.id,
        status: 'pending',
        access: { url: expect.any(String) },
      });
      expect(resumed.body.referenceId).not.toBe(kyc.referenceId);
      expect(resumed.body.access.url).not.toBe(kyc.access.url);
      expect((await request(h.url).get(new URL(kyc.access.url).pathname)).status).toBe(410);
      expect((await submitForm(resumed.body.access.url, identityForm)).status).toBe(200);
      expect((await getKyc(kyc.id)).body.status).toBe('completed');
    });

    it('expires what fell due while nobody swept, in one sweep', async () => {
      const kycs = [await startFull(), await startFull()];
      clock.advance(20 * DAY);
      await h.sweepDue('kyc');
      for (const kyc of kycs) expect((await getKyc(kyc.id)).body.status).toBe('expired');
    });

    it('starts a new KYC instead when the user already completed the verification', async () => {
      const kyc = await startFull();
      await simulate(kyc.id, 'complete');
      await simulate(kyc.id, 'approve');
      const response = await resume(kyc.id);
      expect(response.status).toBe(201);
      expect(response.body).toMatchObject({ userId: kyc.userId, type: 'full', status: 'pending' });
      expect(response.body.id).not.toBe(kyc.id);
      expect(response.headers.location).toBe(`/v1/kycs/${response.body.id}`);
      expect((await getKyc(kyc.id)).body.status).toBe('verified');
    });

    it.each(['decline', 'fail'])('refuses to resume a KYC after %s', async (outcome) => {
      const kyc = await startFull();
      if (outcome === 'decline') await simulate(kyc.id, 'complete');
      await simulate(kyc.id, outcome);
      const response = await resume(kyc.id);
      expect(response.status).toBe(409);
      expect(response.body.error.code).toBe('kyc_resume_not_allowed_error');
    });
  });

  describe('imported KYC', () => {
    const importBody = (userId: string, overrides: Record<string, unknown> = {}) => ({
      userId,
      type: 'import',
      firstName: 'Ada',
      lastName: 'Lovelace',
      dateOfBirth: '1990-12-10',
      address: { addressLine1: '10 rue de Rivoli', city: 'Paris', postalCode: '75001', country: 'FR' },
      ...overrides,
    });

    it('is refused with 403 kyc_import_not_enabled without the contract addendum, creating nothing', async () => {
      const other = await h.newDistributor({ kycImportEnabled: false });
      const userId = await createUser(other.sandboxKey);
      const response = await h.http
        .post('/v1/kycs')
        .set({ 'x-api-key': other.sandboxKey, ...json })
        .send(importBody(userId));
      expect(response.status).toBe(403);
      expect(response.body.error.code).toBe('kyc_import_not_enabled');
      const listed = await h.http.get('/v1/kycs').query({ userId }).set({ 'x-api-key': other.sandboxKey });
      expect(listed.body.count).toBe(0);
    });

    it('imports pre-verified data with the addendum; approval activates the user', async () => {
      const userId = await createUser();
      const imported = await h.http
        .post('/v1/kycs')
        .set({ ...sandbox, ...json })
        .send(importBody(userId));
      expect(imported.status).toBe(201);
      expect(imported.body).toMatchObject({ userId, type: 'import', status: 'pending', access: null });
      expect(imported.body).not.toHaveProperty('linkExpiresAt');
      const verified = await simulate(imported.body.id, 'approve');
      expect(verified.body).toMatchObject({ status: 'verified', userActivated: true });
      expect((await getUser(userId)).status).toBe('active');
    });

    it('verifies an import without an address but does not activate the user (incompleteDetails)', async () => {
      const userId = await createUser();
      const imported = await h.http
        .post('/v1/kycs')
        .set({ ...sandbox, ...json })
        .send(importBody(userId, { address: undefined }));
      const verified = await simulate(imported.body.id, 'approve');
      expect(verified.body).toMatchObject({
        userActivated: false,
        userNotActivatedReason: 'incompleteDetails',
      });
      expect((await getUser(userId)).status).toBe('onboarding');
    });

    it('cannot be resumed or expired: it has no link', async () => {
      const userId = await createUser();
      const imported = await h.http
        .post('/v1/kycs')
        .set({ ...sandbox, ...json })
        .send(importBody(userId));
      expect((await resume(imported.body.id)).body.error.code).toBe('kyc_resume_not_allowed_error');
      expect((await simulate(imported.body.id, 'expire')).status).toBe(409);
    });
  });

  describe('shipping KYC', () => {
    it("captures the shipping address on the page; once verified it is the user's (user.shippingAddressUpdated)", async () => {
      const other = await h.newDistributor({ b2b: false });
      const key = { 'x-api-key': other.sandboxKey };
      const userId = await createUser(other.sandboxKey);
      const kyc = (await startKyc({ userId, type: 'shipping' }, other.sandboxKey)).body;
      const { page } = await openLink(kyc.access.url);
      expect(page.text).toContain('Your shipping address');
      expect(page.text).not.toContain('name="firstName"');
      const submitted = await submitForm(kyc.access.url, {
        addressLine1: 'Unter den Linden 5',
        city: 'Berlin',
        state: 'BE',
        postalCode: '10117',
        country: 'de',
      });
      expect(submitted.status).toBe(200);
      // Completed is not enough: the address awaits approval.
      expect((await h.http.get(`/v1/users/${userId}`).set(key)).body.shippingAddress).toBeNull();

      await simulate(kyc.id, 'approve', {}, other.sandboxKey);
      const user = (await h.http.get(`/v1/users/${userId}`).set(key)).body;
      expect(user.shippingAddress).toEqual({
        addressLine1: 'Unter den Linden 5',
        city: 'Berlin',
        state: 'BE',
        postalCode: '10117',
        country: 'DE',
      });
      const names = (
        await h.http.get('/v1/events').query({ userId, sortBy: 'createdAt', limit: 100 }).set(key)
      ).body.items.map((e: { eventName: string }) => e.eventName);
      expect(names.slice(-2)).toEqual(['user.shippingAddressUpdated', 'kyc.verified']);
    });
  });

  describe('RFI raised by the operator', () => {
    const activeUser = async () => {
      const kyc = await startFull();
      await simulate(kyc.id, 'complete');
      await simulate(kyc.id, 'approve');
      return kyc.userId as string;
    };
    /** As a compliance officer raises one: over the operator API (both topologies). */
    const raise = async (userId: string) =>
      (
        await h.operatorHttp
          .post(`/operator/v1/environments/sandbox/users/${userId}/rfis`)
          .set((await h.operatorAdmin()).headers)
          .send({ rfiSubtype: 'transaction_monitoring', reason: 'e2e' })
          .expect(201)
      ).body as { kyc: { id: string } };
    /**
     * The RFI outcome saga changes the user in its own consumer, after the reply. One process: drain it. Split
     * (no drain across processes): a freeze is waited for on the user itself; a user the saga leaves active
     * gives no signal to wait for, so the check that follows reads it at once.
     */
    const settled = async (userId: string, expected: 'active' | 'frozen') => {
      if (h.topology === 'one-process') await h.platform.app.get(ConsumerHost).drain('sandbox');
      else if (expected === 'frozen')
        await waitFor(async () => (await getUser(userId)).status === 'frozen', {
          what: `user ${userId} frozen by the RFI outcome`,
          intervalMs: 50,
        });
    };

    it('asks the user through the link and does not block an active user while open or once answered', async () => {
      const userId = await activeUser();
      const rfi = (await raise(userId)).kyc;
      const read = await getKyc(rfi.id);
      expect(read.body).toMatchObject({
        type: 'rfi',
        rfiSubtype: 'transaction_monitoring',
        status: 'pending',
      });
      const { page } = await openLink(read.body.access.url);
      expect(page.text).toContain('Explain the recent transactions');
      expect(
        (await submitForm(read.body.access.url, { explanation: 'Salary paid by my employer.' })).status,
      ).toBe(200);
      await simulate(rfi.id, 'approve');
      await settled(userId, 'active');
      expect((await getUser(userId)).status).toBe('active');
      const events = await eventsOf({ userId });
      const rfiEvents = events.filter((e: { eventTargetId: string }) => e.eventTargetId === rfi.id);
      expect(rfiEvents.map((e: { eventName: string }) => e.eventName)).toEqual([
        'kyc.created',
        'kyc.pending',
        'kyc.completed',
        'kyc.verified',
      ]);
      for (const event of rfiEvents)
        expect(event.data).toMatchObject({ type: 'rfi', rfiSubtype: 'transaction_monitoring' });
    });

    it('freezes an active user once the RFI is declined', async () => {
      const userId = await activeUser();
      const rfi = (await raise(userId)).kyc;
      await simulate(rfi.id, 'complete');
      await simulate(rfi.id, 'decline');
      await settled(userId, 'frozen');
      expect((await getUser(userId)).status).toBe('frozen');
      expect(await eventsOf({ userId, eventName: 'user.frozen' })).toHaveLength(1);
    });

    it('freezes an active user once the RFI expires unanswered', async () => {
      const userId = await activeUser();
      await raise(userId);
      clock.advance(15 * DAY);
      await h.sweepDue('kyc');
      await settled(userId, 'frozen');
      expect((await getUser(userId)).status).toBe('frozen');
    });
  });

  describe('refusals', () => {
    it('validates the start request', async () => {
      const userId = await createUser();
      for (const body of [
        { userId, type: 'import' },
        { userId, type: 'passport' },
        { userId, type: 'rfi' },
        { userId, type: 'full', rfiSubtype: 'onboarding' },
        { userId: 'bob', type: 'full' },
        { userId, type: 'full', extra: 1 },
      ]) {
        const response = await startKyc(body);
        expect(response.status).toBe(400);
        expect(response.body.error.code).toBe('validation_error');
      }
      expect((await h.http.get('/v1/kycs').query({ userId }).set(sandbox)).body.count).toBe(0);
    });

    it("answers 404 for a missing user and for another distributor's KYC", async () => {
      const missing = await startKyc({ userId: 'usr-00000000-0000-4000-8000-000000000000', type: 'full' });
      expect(missing.status).toBe(404);
      const kyc = await startFull();
      const other = await h.newDistributor();
      expect((await getKyc(kyc.id, other.sandboxKey)).status).toBe(404);
      expect((await simulate(kyc.id, 'approve', {}, other.sandboxKey)).status).toBe(404);
      expect((await getKyc('kyc-nope')).status).toBe(404);
      const otherUser = await createUser(other.sandboxKey);
      expect((await startKyc({ userId: otherUser, type: 'full' })).status).toBe(404);
    });

    it('keeps simulations to sandbox keys (403 sandbox_only) and names unknown ones', async () => {
      const kyc = await startFull();
      const production = await simulate(kyc.id, 'approve', {}, PRODUCTION_KEY);
      expect(production.status).toBe(403);
      expect(production.body.error.code).toBe('sandbox_only');
      expect((await simulate(kyc.id, 'teleport')).status).toBe(404);
      expect((await simulate(kyc.id, 'fail', { declinedCode: 'name' })).status).toBe(400);
      expect((await getKyc(kyc.id)).body.status).toBe('pending');
    });
  });
});
