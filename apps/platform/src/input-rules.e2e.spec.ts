import { sendRaw } from './testing/fuzz/raw-http';
import { Harness, newUserBody, SANDBOX_KEY, startHarness } from './testing/platform-harness';

/**
 * The classes of bad input that reached a 500, or were stored as sent, before the hardening of issue 10:
 * each answered now with a 4xx in the error shape that says what is wrong, and nothing created.
 */
describe('bad input is refused with a clear 4xx', () => {
  let h: Harness;
  let port: number;
  let b2bKey: string;
  const json = { 'content-type': 'application/json' };

  beforeAll(async () => {
    h = await startHarness({ httpTimeouts: { headersMs: 500, requestMs: 1_000 } });
    port = Number(new URL(h.url).port);
    b2bKey = (await h.newDistributor({ b2b: true, kycImportEnabled: true })).sandboxKey;
  });
  afterAll(() => h.close());

  const createUser = (body: Record<string, unknown>, key = SANDBOX_KEY) =>
    h.http
      .post('/v1/users')
      .set({ 'x-api-key': key, ...json })
      .send(body);
  const userCount = async (key = SANDBOX_KEY) =>
    (await h.http.get('/v1/users').set({ 'x-api-key': key })).body.count as number;
  const fields = (body: { error: { details?: { field: string }[] } }) =>
    (body.error.details ?? []).map((d) => d.field);
  const raw = (target: string, headers: Record<string, string>, body?: Buffer, method = 'POST') =>
    sendRaw(port, { method, target, headers: { 'x-api-key': SANDBOX_KEY, ...headers }, body }, 5_000);

  describe('human text', () => {
    it.each([
      ['firstName', { firstName: 'Ada\u202eecilA' }],
      ['lastName', { lastName: 'Love\u2066lace' }],
      ['firstName', { firstName: 'Ada\u0000' }],
      ['lastName', { lastName: 'Lovelace\u0085' }],
      ['firstName', { firstName: 'Ada\u200f' }],
      ['email', { email: 'ada\u202e@example.com' }],
    ])('refuses control characters and bidi controls in %s, naming the field', async (field, override) => {
      const before = await userCount();
      const response = await createUser(newUserBody(override));
      expect(response.status).toBe(400);
      expect(response.body.error.code).toBe('validation_error');
      expect(fields(response.body)).toContain(field);
      expect(await userCount()).toBe(before);
    });

    it('refuses a lone surrogate anywhere in a body (an email made validator.js throw: 500)', async () => {
      const response = await raw(
        '/v1/users',
        json,
        Buffer.from(JSON.stringify(newUserBody()).replace('"email":"', '"email":"\\ud800')),
      );
      expect(response.status).toBe(400);
      expect(fields(JSON.parse(response.body))).toContain('email');
    });

    it('refuses control characters in an address line and in a webhook url', async () => {
      const address = { addressLine1: '1 rue\u202e', city: 'Paris', postalCode: '75001', country: 'FR' };
      const user = await createUser(newUserBody({ shippingAddress: address }), b2bKey);
      expect(user.status).toBe(400);
      expect(fields(user.body)).toContain('shippingAddress.addressLine1');
      const subscription = await h.http
        .post('/v1/webhook-subscriptions')
        .set({ 'x-api-key': SANDBOX_KEY, ...json })
        .send({ url: 'https://hooks.example.com/\u0000' });
      expect(subscription.status).toBe(400);
      expect(fields(subscription.body)).toContain('url');
    });

    it('still takes names in any script, with accents and apostrophes', async () => {
      const response = await createUser(
        newUserBody({ firstName: 'Zoë-Ōtsuka', lastName: "محمد O'Brien 山田" }),
      );
      expect(response.status).toBe(201);
    });
  });

  describe('shapes', () => {
    it('refuses an array where an object is expected (a KYC import with address [] was a 500)', async () => {
      const user = await createUser(newUserBody(), b2bKey);
      const imported = await h.http
        .post('/v1/kycs')
        .set({ 'x-api-key': b2bKey, ...json })
        .send({
          userId: user.body.id,
          firstName: 'Ada',
          lastName: 'Lovelace',
          dateOfBirth: '1990-12-10',
          address: [],
        });
      expect(imported.status).toBe(400);
      expect(fields(imported.body)).toContain('address');

      const before = await userCount(b2bKey);
      const created = await createUser(newUserBody({ shippingAddress: [] }), b2bKey);
      expect(created.status).toBe(400);
      expect(fields(created.body)).toContain('shippingAddress');
      expect(await userCount(b2bKey)).toBe(before);
    });

    it('refuses JSON nested deeper than 32 levels before building it (100k levels was a 500)', async () => {
      for (const depth of [33, 100_000]) {
        const body = `{"firstName":${'['.repeat(depth)}${']'.repeat(depth)}}`;
        const response = await raw('/v1/users', json, Buffer.from(body));
        expect(response.status).toBe(400);
        expect(JSON.parse(response.body).error).toMatchObject({
          code: 'validation_error',
          message: 'The request body nests deeper than 32 levels',
        });
      }
    });
  });

  describe('encodings', () => {
    it('refuses compressed bodies and charsets other than UTF-8 with 415, and bytes that are not UTF-8 with 400', async () => {
      const body = Buffer.from(JSON.stringify(newUserBody()));
      const gzip = await raw('/v1/users', { ...json, 'content-encoding': 'gzip' }, body);
      expect(gzip.status).toBe(415);
      const latin1 = await raw('/v1/users', { 'content-type': 'application/json; charset=latin1' }, body);
      expect(latin1.status).toBe(415);
      const notUtf8 = await raw(
        '/v1/users',
        json,
        Buffer.from(JSON.stringify(newUserBody({ firstName: 'Jos\u00e9' })), 'latin1'),
      );
      expect(notUtf8.status).toBe(400);
      expect(JSON.parse(notUtf8.body).error.message).toBe('The request body is not valid UTF-8');
    });
  });

  describe('lists and query strings', () => {
    it.each([
      ['fromPage', 'fromPage=1e15'],
      ['fromPage', 'fromPage=10001'],
      ['fromPage', 'fromPage=%0D%0A'],
      ['fromPage', 'fromPage=0x10'],
      ['limit', 'limit=1e1'],
      ['limit', 'limit=1&limit=2'],
      ['status', 'status=active&status=frozen'],
      ['limit', 'limit[]=1'],
    ])('answers an absurd %s with a 400 naming it (%s)', async (field, query) => {
      const response = await h.http.get(`/v1/users?${query}`).set({ 'x-api-key': SANDBOX_KEY });
      expect(response.status).toBe(400);
      expect(fields(response.body).some((f) => f.startsWith(field))).toBe(true);
    });

    it('serves the deepest page allowed', async () => {
      const response = await h.http.get('/v1/users?fromPage=10000').set({ 'x-api-key': SANDBOX_KEY });
      expect(response.status).toBe(200);
      expect(response.body.items).toEqual([]);
    });
  });

  describe('refusals made before routing keep the error shape', () => {
    it.each([
      ['malformed percent-encoding in the path', '/v1/users/%ZZ', {}, 400, 'validation_error'],
      ['a path parameter longer than any id', `/v1/users/${'a'.repeat(1_000)}`, {}, 404, 'not_found'],
      [
        'headers beyond the limit',
        '/v1/users',
        { 'x-padding': 'a'.repeat(20_000) },
        431,
        'headers_too_large',
      ],
      [
        'a header with a control byte',
        '/v1/users',
        { 'x-idempotency-key': 'a\u0001b' },
        400,
        'validation_error',
      ],
    ])('%s', async (_, target, headers, status, code) => {
      const response = await raw(target, headers, undefined, 'GET');
      expect(response.status).toBe(status);
      expect(JSON.parse(response.body)).toEqual({
        error: { code, message: expect.any(String) },
        requestId: expect.stringMatching(/^req_/),
      });
    });

    it('a body shorter than its Content-Length', async () => {
      const response = await sendRaw(
        port,
        {
          method: 'POST',
          target: '/v1/users',
          headers: { 'x-api-key': SANDBOX_KEY, ...json },
          body: Buffer.from('{"email":'),
          contentLength: 100,
        },
        5_000,
      );
      expect(response.status).toBe(408);
      expect(JSON.parse(response.body).error.code).toBe('request_timeout');
    });
  });
});
