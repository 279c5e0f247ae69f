import { changeUserStatusAsOperator } from './testing/cardholders';
import { Harness, newUserBody, PRODUCTION_KEY, SANDBOX_KEY, startHarness } from './testing/platform-harness';
import { e2eTopology, splitStoreDriver } from './testing/topology';

describe('users over /v1, as a distributor uses them', () => {
  let h: Harness;
  const json = { 'content-type': 'application/json' };
  const sandbox = { 'x-api-key': SANDBOX_KEY };

  beforeAll(async () => {
    h = await startHarness();
  });
  afterAll(async () => {
    await h.close();
  });

  const createUser = (body: Record<string, unknown> = newUserBody(), key = SANDBOX_KEY) =>
    h.http
      .post('/v1/users')
      .set({ 'x-api-key': key, ...json })
      .send(body);

  describe('creating and reading', () => {
    it('creates a user, returns it with a usr-<uuid> id, and reads it back at once', async () => {
      const body = newUserBody({ email: '  Grace.Hopper@Example.com ' });
      const created = await createUser(body);
      expect(created.status).toBe(201);
      expect(created.body).toMatchObject({
        email: 'grace.hopper@example.com',
        firstName: 'Ada',
        countryOfResidence: 'FR',
        status: 'onboarding',
        phone: null,
        shippingAddress: null,
      });
      expect(created.body.id).toMatch(/^usr-[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[0-9a-f]{4}-[0-9a-f]{12}$/);
      expect(created.headers.location).toBe(`/v1/users/${created.body.id}`);
      expect(created.body).not.toHaveProperty('distributorId');

      const read = await h.http.get(`/v1/users/${created.body.id}`).set(sandbox);
      expect(read.status).toBe(200);
      expect(read.body).toEqual(created.body);

      const listed = await h.http.get('/v1/users').query({ email: 'grace.hopper@example.com' }).set(sandbox);
      expect(listed.body).toEqual({ page: 0, count: 1, hasMore: false, items: [created.body] });
    });

    it('records a user.created Event with the user snapshot, listed and readable by id', async () => {
      const created = await createUser();
      const events = await h.http
        .get('/v1/events')
        .query({ userId: created.body.id, eventName: 'user.created' })
        .set(sandbox);
      expect(events.status).toBe(200);
      expect(events.body.count).toBe(1);
      const [event] = events.body.items;
      expect(event).toMatchObject({
        eventName: 'user.created',
        eventTargetId: created.body.id,
        userId: created.body.id,
        data: created.body,
      });
      expect(event.eventId).toMatch(/^[0-9a-f-]{36}$/);
      const one = await h.http.get(`/v1/events/${event.eventId}`).set(sandbox);
      expect(one.body).toEqual(event);
    });

    it('refuses a country outside the program with 422 country_not_allowed and creates nothing', async () => {
      const body = newUserBody({ countryOfResidence: 'US' });
      const response = await createUser(body);
      expect(response.status).toBe(422);
      expect(response.body.error.code).toBe('country_not_allowed');
      const listed = await h.http.get('/v1/users').query({ email: body.email }).set(sandbox);
      expect(listed.body.count).toBe(0);
    });

    it('follows a program change at once (allow-lists change at short notice)', async () => {
      const other = await h.newDistributor({ allowedCountries: ['DE'] });
      expect((await createUser(newUserBody({ countryOfResidence: 'FR' }), other.sandboxKey)).status).toBe(
        422,
      );
      await h.operatorHttp
        .patch(`/operator/v1/distributors/${other.distributorId}/program`)
        .set((await h.operatorAdmin()).headers)
        .send({ countries: ['DE', 'FR'], reason: 'e2e' })
        .expect(200);
      expect((await createUser(newUserBody({ countryOfResidence: 'FR' }), other.sandboxKey)).status).toBe(
        201,
      );
    });
  });

  describe('duplicates', () => {
    it('answers 409 duplicate_user_error naming the existing user, whatever the email case', async () => {
      const body = newUserBody();
      const first = await createUser(body);
      const again = await createUser({ ...body, email: body.email.toUpperCase(), firstName: 'Other' });
      expect(again.status).toBe(409);
      expect(again.body.error.code).toBe('duplicate_user_error');
      expect(again.body.error.message).toContain(first.body.id);
    });

    it('lets exactly one of ten concurrent creations with the same email win', async () => {
      const body = newUserBody();
      const responses = await Promise.all(
        Array.from({ length: 10 }, (_, i) => createUser({ ...body, firstName: `Racer${i}` })),
      );
      expect(responses.filter((r) => r.status === 201)).toHaveLength(1);
      expect(
        responses.filter((r) => r.status === 409).every((r) => r.body.error.code === 'duplicate_user_error'),
      ).toBe(true);
      const listed = await h.http.get('/v1/users').query({ email: body.email }).set(sandbox);
      expect(listed.body.count).toBe(1);
    });

    it('allows the same email at another distributor', async () => {
      const body = newUserBody();
      const other = await h.newDistributor();
      expect((await createUser(body)).status).toBe(201);
      expect((await createUser(body, other.sandboxKey)).status).toBe(201);
    });
  });

  describe('idempotency (spec part 4)', () => {
    it('creates exactly one user when the same request is sent 8 times concurrently', async () => {
      const body = newUserBody();
      const headers = { ...sandbox, ...json, 'x-idempotency-key': `idem-${Date.now()}` };
      const responses = await Promise.all(
        Array.from({ length: 8 }, () => h.http.post('/v1/users').set(headers).send(body)),
      );
      const created = responses.filter((r) => r.status === 201);
      const inFlight = responses.filter((r) => r.status === 409);
      expect(created.length + inFlight.length).toBe(8);
      expect(created.length).toBeGreaterThanOrEqual(1);
      expect(new Set(created.map((r) => r.body.id)).size).toBe(1);
      expect(inFlight.every((r) => r.body.error.code === 'idempotency_request_in_progress')).toBe(true);
      const listed = await h.http.get('/v1/users').query({ email: body.email }).set(sandbox);
      expect(listed.body.count).toBe(1);

      const replay = await h.http.post('/v1/users').set(headers).send(body);
      expect(replay.status).toBe(201);
      expect(replay.headers['x-idempotent-replayed']).toBe('true');
      expect(replay.body).toEqual(created[0].body);
      expect(replay.headers.location).toBe(`/v1/users/${created[0].body.id}`);
    });

    it('stores failures too: a repeated refused request returns the same error without re-running', async () => {
      const headers = { ...sandbox, ...json, 'x-idempotency-key': `idem-fail-${Date.now()}` };
      const body = newUserBody({ countryOfResidence: 'US' });
      const first = await h.http.post('/v1/users').set(headers).send(body);
      const second = await h.http.post('/v1/users').set(headers).send(body);
      expect(first.status).toBe(422);
      expect(second.status).toBe(422);
      expect(second.headers['x-idempotent-replayed']).toBe('true');
      expect(second.body).toEqual(first.body);
    });

    it('treats a different body under the same key as a different request (the five-part identity)', async () => {
      const key = `idem-body-${Date.now()}`;
      const headers = { ...sandbox, ...json, 'x-idempotency-key': key };
      const a = await h.http.post('/v1/users').set(headers).send(newUserBody());
      const b = await h.http.post('/v1/users').set(headers).send(newUserBody());
      expect([a.status, b.status]).toEqual([201, 201]);
      expect(a.body.id).not.toBe(b.body.id);
      expect(b.headers['x-idempotent-replayed']).toBeUndefined();
    });

    it('never replays one distributor’s outcome to another using the same key and body', async () => {
      const other = await h.newDistributor();
      const body = newUserBody();
      const key = `idem-tenant-${Date.now()}`;
      const mine = await h.http
        .post('/v1/users')
        .set({ ...sandbox, ...json, 'x-idempotency-key': key })
        .send(body);
      const theirs = await h.http
        .post('/v1/users')
        .set({ 'x-api-key': other.sandboxKey, ...json, 'x-idempotency-key': key })
        .send(body);
      expect(theirs.status).toBe(201);
      expect(theirs.body.id).not.toBe(mine.body.id);
    });

    it('refuses keys longer than 64 characters with 400 and creates nothing', async () => {
      const body = newUserBody();
      const response = await h.http
        .post('/v1/users')
        .set({ ...sandbox, ...json, 'x-idempotency-key': 'k'.repeat(65) })
        .send(body);
      expect(response.status).toBe(400);
      expect(response.body.error.code).toBe('validation_error');
      expect((await h.http.get('/v1/users').query({ email: body.email }).set(sandbox)).body.count).toBe(0);
    });
  });

  describe('tenancy and environments', () => {
    it('keeps sandbox and production apart: a sandbox user does not exist in production', async () => {
      const created = await createUser();
      const fromProduction = await h.http
        .get(`/v1/users/${created.body.id}`)
        .set({ 'x-api-key': PRODUCTION_KEY });
      expect(fromProduction.status).toBe(404);
      expect(fromProduction.body.error.code).toBe('not_found');
      const productionList = await h.http
        .get('/v1/users')
        .query({ limit: 100 })
        .set({ 'x-api-key': PRODUCTION_KEY });
      expect(productionList.body.items.map((u: { id: string }) => u.id)).not.toContain(created.body.id);
    });

    it("answers 404 for another distributor's user and never lists or sends its events", async () => {
      const created = await createUser();
      const other = await h.newDistributor();
      const theirs = { 'x-api-key': other.sandboxKey };
      expect((await h.http.get(`/v1/users/${created.body.id}`).set(theirs)).status).toBe(404);
      const put = await h.http
        .put(`/v1/users/${created.body.id}/phone`)
        .set({ ...theirs, ...json })
        .send({ country: '+33', number: '600000001' });
      expect(put.status).toBe(404);
      expect((await h.http.get('/v1/users').query({ limit: 100 }).set(theirs)).body.count).toBe(0);
      const events = await h.http.get('/v1/events').query({ userId: created.body.id }).set(theirs);
      expect(events.body.count).toBe(0);
      const mine = await h.http.get('/v1/events').query({ userId: created.body.id }).set(sandbox);
      expect((await h.http.get(`/v1/events/${mine.body.items[0].eventId}`).set(theirs)).status).toBe(404);
    });

    it('refuses missing, unknown and revoked keys with 401', async () => {
      expect((await h.http.get('/v1/users')).status).toBe(401);
      const unknown = await h.http.get('/v1/users').set({ 'x-api-key': 'sk_sandbox_nope' });
      expect(unknown.status).toBe(401);
      expect(unknown.body.error.code).toBe('unauthorized');
      const other = await h.newDistributor();
      expect((await h.http.get('/v1/users').set({ 'x-api-key': other.sandboxKey })).status).toBe(200);
      const { headers } = await h.operatorAdmin();
      const distributor = await h.operatorHttp
        .get(`/operator/v1/distributors/${other.distributorId}`)
        .set(headers)
        .expect(200);
      await h.operatorHttp
        .post(`/operator/v1/keys/${distributor.body.keys[0].keyId}/revoke`)
        .set(headers)
        .send({ reason: 'e2e' })
        .expect(200);
      expect((await h.http.get('/v1/users').set({ 'x-api-key': other.sandboxKey })).status).toBe(401);
    });
  });

  describe('phone and shipping address', () => {
    it('sets a phone, emits user.phoneNumberSet, and keeps phones unique within the distributor', async () => {
      const a = await createUser();
      const b = await createUser();
      const phone = { country: '+33', number: `6${String(Date.now()).slice(-8)}` };
      const set = await h.http
        .put(`/v1/users/${a.body.id}/phone`)
        .set({ ...sandbox, ...json })
        .send(phone);
      expect(set.status).toBe(200);
      expect(set.body.phone).toEqual(phone);
      const taken = await h.http
        .put(`/v1/users/${b.body.id}/phone`)
        .set({ ...sandbox, ...json })
        .send(phone);
      expect(taken.status).toBe(409);
      expect(taken.body.error.code).toBe('duplicate_user_error');

      const events = await h.http
        .get('/v1/events')
        .query({ userId: a.body.id, eventName: 'user.phoneNumberSet' })
        .set(sandbox);
      expect(events.body.items[0].data.phone).toEqual(phone);

      // Changing a's phone frees the old number for b.
      await h.http
        .put(`/v1/users/${a.body.id}/phone`)
        .set({ ...sandbox, ...json })
        .send({ country: '+33', number: '700000000' });
      expect(
        (
          await h.http
            .put(`/v1/users/${b.body.id}/phone`)
            .set({ ...sandbox, ...json })
            .send(phone)
        ).status,
      ).toBe(200);
    });

    it('validates phones', async () => {
      const a = await createUser();
      const bad = await h.http
        .put(`/v1/users/${a.body.id}/phone`)
        .set({ ...sandbox, ...json })
        .send({ country: '33', number: '+33 6 12' });
      expect(bad.status).toBe(400);
      expect(bad.body.error.details.map((d: { field: string }) => d.field).sort()).toEqual([
        'country',
        'number',
      ]);
    });

    it('lets B2B distributors set shipping addresses and refuses others with 403', async () => {
      const address = {
        addressLine1: '1 Main St',
        city: 'Paris',
        postalCode: '75001',
        country: 'FR',
        state: 'IDF',
      };
      const b2bUser = await createUser(newUserBody({ shippingAddress: address }));
      expect(b2bUser.status).toBe(201);
      expect(b2bUser.body.shippingAddress).toEqual(address);
      const moved = await h.http
        .put(`/v1/users/${b2bUser.body.id}/shipping-address`)
        .set({ ...sandbox, ...json })
        .send({ ...address, city: 'Lyon' });
      expect(moved.body.shippingAddress.city).toBe('Lyon');
      const events = await h.http
        .get('/v1/events')
        .query({ userId: b2bUser.body.id, eventName: 'user.shippingAddressUpdated' })
        .set(sandbox);
      expect(events.body.count).toBe(1);

      const retail = await h.newDistributor({ b2b: false });
      const retailKey = { 'x-api-key': retail.sandboxKey, ...json };
      const refusedOnCreate = await createUser(newUserBody({ shippingAddress: address }), retail.sandboxKey);
      expect(refusedOnCreate.status).toBe(403);
      const user = await createUser(newUserBody(), retail.sandboxKey);
      const refused = await h.http
        .put(`/v1/users/${user.body.id}/shipping-address`)
        .set(retailKey)
        .send(address);
      expect(refused.status).toBe(403);
      expect(refused.body.error.code).toBe('forbidden');
    });

    it('refuses a region over 12 characters', async () => {
      const response = await createUser(
        newUserBody({
          shippingAddress: {
            addressLine1: '1 Main St',
            city: 'X',
            postalCode: '1',
            country: 'FR',
            state: 'Provence-Alpes',
          },
        }),
      );
      expect(response.status).toBe(400);
      expect(response.body.error.details[0].field).toBe('shippingAddress.state');
    });
  });

  describe('status changes (commands for sagas and operators)', () => {
    it('activates, freezes and revokes with events; revoked is terminal', async () => {
      const created = await createUser();
      const change = (to: 'active' | 'frozen' | 'revoked', reason?: string) =>
        changeUserStatusAsOperator(h, created.body.id, to, reason);
      expect((await change('active')).status).toBe(200);
      expect((await change('frozen', 'suspicious activity')).status).toBe(200);
      expect((await h.http.get(`/v1/users/${created.body.id}`).set(sandbox)).body.status).toBe('frozen');
      expect((await change('revoked')).status).toBe(200);
      const refused = await change('active');
      expect({ status: refused.status, code: refused.body.error?.code }).toEqual({
        status: 409,
        code: 'invalid_state_transition',
      });
      const events = await h.http
        .get('/v1/events')
        .query({ userId: created.body.id, sortBy: 'createdAt' })
        .set(sandbox);
      // Activation also provisions the user's wallet (wallet.* Events): only the user's own Events matter here.
      const userEvents = events.body.items.filter((e: { eventName: string }) =>
        e.eventName.startsWith('user.'),
      );
      expect(userEvents.map((e: { eventName: string }) => e.eventName)).toEqual([
        'user.created',
        'user.activated',
        'user.frozen',
        'user.revoked',
      ]);
      expect(userEvents[2].data.status).toBe('frozen');
    });
  });

  describe('lists', () => {
    it('pages and sorts with the envelope of spec part 2', async () => {
      const other = await h.newDistributor();
      const key = { 'x-api-key': other.sandboxKey };
      const ids: string[] = [];
      for (let i = 0; i < 12; i++) ids.push((await createUser(newUserBody(), other.sandboxKey)).body.id);
      const first = await h.http.get('/v1/users').query({ limit: 5 }).set(key);
      expect(first.body).toMatchObject({ page: 0, count: 5, hasMore: true });
      expect(first.body.items.map((u: { id: string }) => u.id)).toEqual([...ids].reverse().slice(0, 5));
      const last = await h.http.get('/v1/users').query({ limit: 5, fromPage: 2 }).set(key);
      expect(last.body).toMatchObject({ page: 2, count: 2, hasMore: false });
      const ascending = await h.http.get('/v1/users').query({ sortBy: 'createdAt', limit: 3 }).set(key);
      expect(ascending.body.items.map((u: { id: string }) => u.id)).toEqual(ids.slice(0, 3));
    });

    it.each([
      [{ limit: 0 }, 'limit'],
      [{ limit: 101 }, 'limit'],
      [{ limit: 'ten' }, 'limit'],
      [{ fromPage: -1 }, 'fromPage'],
      [{ sortBy: 'email' }, 'sortBy'],
      [{ status: 'sleeping' }, 'status'],
      [{ colour: 'red' }, 'colour'],
    ])('refuses %j with 400 validation_error naming %s', async (query, field) => {
      const response = await h.http.get('/v1/users').query(query).set(sandbox);
      expect(response.status).toBe(400);
      expect(response.body.error.code).toBe('validation_error');
      expect(response.body.error.details.map((d: { field: string }) => d.field)).toContain(field);
    });
  });

  describe('bad input never changes anything and never leaks internals', () => {
    it.each([
      ['malformed JSON', '{"email":', 400],
      ['an array body', '[1,2]', 400],
      [
        'wrong types',
        JSON.stringify({ email: 5, firstName: [], lastName: {}, countryOfResidence: 'FRA' }),
        400,
      ],
      ['an unknown field', JSON.stringify({ ...newUserBody(), admin: true }), 400],
    ])('%s gets a 4xx with the error shape', async (_, payload, status) => {
      const before = (await h.http.get('/v1/users').query({ limit: 100 }).set(sandbox)).body.count;
      const response = await h.http
        .post('/v1/users')
        .set({ ...sandbox, ...json })
        .send(payload);
      expect(response.status).toBe(status);
      expect(response.body).toEqual({
        error: expect.objectContaining({ code: 'validation_error', message: expect.any(String) }),
        requestId: expect.any(String),
      });
      expect(JSON.stringify(response.body)).not.toMatch(/\bat .*\.(js|ts):\d+/);
      expect((await h.http.get('/v1/users').query({ limit: 100 }).set(sandbox)).body.count).toBe(before);
    });

    it('refuses a non-JSON content type with 415', async () => {
      const response = await h.http
        .post('/v1/users')
        .set({ ...sandbox, 'content-type': 'text/plain' })
        .send('hello');
      expect(response.status).toBe(415);
      expect(response.body.error.code).toBe('unsupported_media_type');
    });

    it('answers unknown ids and routes with 404 not_found', async () => {
      expect(
        (await h.http.get('/v1/users/usr-00000000-0000-4000-8000-000000000000').set(sandbox)).status,
      ).toBe(404);
      expect((await h.http.get('/v1/users/not-an-id').set(sandbox)).body.error.code).toBe('not_found');
      expect((await h.http.get('/v1/nowhere').set(sandbox)).body.error.code).toBe('not_found');
    });

    it('puts a request id on every response, keeping a sane caller-supplied one', async () => {
      const response = await h.http.get('/v1/users').set({ ...sandbox, 'x-request-id': 'trace-abc.123' });
      expect(response.headers['x-request-id']).toBe('trace-abc.123');
      const failed = await h.http.get('/v1/users');
      expect(failed.body.requestId).toBe(failed.headers['x-request-id']);
    });
  });

  describe('operations surface', () => {
    it('serves health, Prometheus metrics, the OpenAPI document and a docs page', async () => {
      expect((await h.http.get('/health')).status).toBe(200);
      await h.http.get('/v1/users').set(sandbox);
      const metrics = await h.http.get('/metrics');
      expect(metrics.text).toMatch(
        /http_request_duration_seconds_bucket\{[^}]*route="\/v1\/users"[^}]*status="200"/,
      );
      expect(metrics.text).toContain('event_store_append_duration_seconds');
      expect(metrics.text).toContain('consumer_lag_events');
      // The stores' own gauge: the WAL of each SQLite file, or PostgreSQL's oldest open writing transaction.
      expect(metrics.text).toMatch(
        e2eTopology() === 'split' && splitStoreDriver() === 'postgres'
          ? /^postgres_oldest_transaction_age_seconds\{store="postgres:control"\} [\d.e-]+$/m
          : /^sqlite_wal_bytes\{file="sandbox\.sqlite"\} \d+$/m,
      );
      const openapi = await h.http.get('/v1/openapi.json');
      expect(openapi.body.paths['/v1/users'].post).toBeDefined();
      expect(openapi.body.paths['/v1/users/{userId}/phone'].put).toBeDefined();
      expect(openapi.body.components.securitySchemes.apiKey).toMatchObject({
        in: 'header',
        name: 'x-api-key',
      });
      const docs = await h.http.get('/v1/docs');
      expect(docs.status).toBe(200);
      expect(docs.text).toContain('<html');
    });
  });
});

describe('rate limiting', () => {
  let h: Harness;
  beforeAll(async () => {
    h = await startHarness({ rateLimit: { ratePerSecond: 1, burst: 3 } });
  });
  afterAll(async () => {
    await h.close();
  });

  it('answers 429 rate_limited with Retry-After once a key exceeds its budget, per key', async () => {
    const statuses: number[] = [];
    let limited: { headers: Record<string, string>; body: { error: { code: string } } } | undefined;
    for (let i = 0; i < 5; i++) {
      const response = await h.http.get('/v1/users').set({ 'x-api-key': SANDBOX_KEY });
      statuses.push(response.status);
      if (response.status === 429) limited = response;
    }
    expect(statuses.slice(0, 3)).toEqual([200, 200, 200]);
    expect(statuses.slice(3)).toContain(429);
    expect(limited?.body.error.code).toBe('rate_limited');
    expect(Number(limited?.headers['retry-after'])).toBeGreaterThanOrEqual(1);
    expect((await h.http.get('/v1/users').set({ 'x-api-key': PRODUCTION_KEY })).status).toBe(200);
  });

  it('limits requests without a valid key per client address, so keys cannot be guessed quickly', async () => {
    const statuses: number[] = [];
    for (let i = 0; i < 5; i++) {
      const guess = await h.http
        .get('/v1/users')
        .set({ 'x-api-key': `sk_sandbox_guess${i}AAAAAAAAAAAAAAAAAAAAAAAAA` });
      statuses.push(guess.status);
      if (guess.status === 429) {
        expect(guess.body.error.code).toBe('rate_limited');
        expect(Number(guess.headers['retry-after'])).toBeGreaterThanOrEqual(1);
      }
    }
    expect(statuses.slice(0, 3)).toEqual([401, 401, 401]);
    expect(statuses.slice(3)).toEqual([429, 429]);
    expect((await h.http.get('/v1/users')).status).toBe(429);
    // A valid key is not held back by the guesses made from the same address.
    expect((await h.http.get('/v1/users').set({ 'x-api-key': PRODUCTION_KEY })).status).toBe(200);
  });
});
