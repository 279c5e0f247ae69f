import { eraseAsOperator, withSandboxLog } from './testing/cardholders';
import { Harness, startHarness } from './testing/platform-harness';

/** Values nothing else in the data directory could hold by chance. */
const PERSON = {
  email: 'oriane.shredding-e2e@example.com',
  firstName: 'Oriane',
  lastName: 'Kettleborough',
  countryOfResidence: 'FR',
};
const BIRTH_DATE = '1987-03-29';
const DOCUMENT = 'DOC-7Q4Z9X';

describe('personal data while the platform runs: sealed in the log, erased everywhere at once', () => {
  let h: Harness;
  let key: string;
  let distributorId: string;
  const json = { 'content-type': 'application/json' };

  beforeAll(async () => {
    h = await startHarness();
    ({ distributorId, sandboxKey: key } = await h.newDistributor({
      allowedCountries: ['FR'],
      kycImportEnabled: true,
    }));
  });
  afterAll(async () => {
    await h.close();
  });

  it("seals a user's and its KYC's identity in the log, serves it in clear, and erases it from the API and the Events", async () => {
    const user = await h.http
      .post('/v1/users')
      .set({ 'x-api-key': key, ...json })
      .send(PERSON);
    expect(user.status).toBe(201);
    const userId = user.body.id as string;
    const kyc = await h.http
      .post('/v1/kycs')
      .set({ 'x-api-key': key, ...json })
      .send({
        userId,
        type: 'import',
        firstName: PERSON.firstName,
        lastName: PERSON.lastName,
        dateOfBirth: BIRTH_DATE,
        documentNumber: DOCUMENT,
        address: { addressLine1: '3 quai Kettle', city: 'Lyon', postalCode: '69001', country: 'FR' },
      });
    expect(kyc.status).toBe(201);

    const stored = JSON.stringify(
      await withSandboxLog(h, async (log) => [
        ...(await log.storedEventStore.readStream(userId)),
        ...(await log.storedEventStore.readStream(kyc.body.id)),
      ]),
    );
    for (const value of [PERSON.email, PERSON.firstName, PERSON.lastName, BIRTH_DATE, DOCUMENT]) {
      expect(stored).not.toContain(value);
    }
    expect((await h.http.get(`/v1/users/${userId}`).set({ 'x-api-key': key })).body).toMatchObject(PERSON);
    const before = await h.http
      .get('/v1/events')
      .query({ userId, eventName: 'user.created' })
      .set({ 'x-api-key': key });
    expect(before.body.items[0].data).toMatchObject({ email: PERSON.email, lastName: PERSON.lastName });

    // The operator's erasure, as `cli users erase` makes it.
    await eraseAsOperator(h, userId, 'DSR-1', distributorId);

    const read = await h.http.get(`/v1/users/${userId}`).set({ 'x-api-key': key });
    expect(read.status).toBe(200);
    expect(read.body).toMatchObject({
      id: userId,
      status: 'deleted',
      email: null,
      firstName: null,
      lastName: null,
      phone: null,
      shippingAddress: null,
      countryOfResidence: 'FR',
    });
    const listed = await h.http.get('/v1/users').set({ 'x-api-key': key });
    expect(listed.body.items).toEqual([read.body]);
    const events = await h.http.get('/v1/events').query({ userId }).set({ 'x-api-key': key });
    expect(events.body.items.map((e: { eventName: string }) => e.eventName)).toEqual(
      expect.arrayContaining(['user.created', 'user.deleted']),
    );
    const served = JSON.stringify(events.body);
    for (const value of [PERSON.email, PERSON.firstName, PERSON.lastName])
      expect(served).not.toContain(value);

    // A new personal fact about the erased person is refused, and changes nothing.
    const phone = await h.http
      .put(`/v1/users/${userId}/phone`)
      .set({ 'x-api-key': key, ...json })
      .send({ country: '+33', number: '612345678' });
    expect(phone.status).toBe(409);
    expect((await h.http.get(`/v1/users/${userId}`).set({ 'x-api-key': key })).body).toEqual(read.body);
  });
});
