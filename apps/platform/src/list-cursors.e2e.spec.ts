import { ManualClock } from '@cip/shared/runtime';
import { Harness, newUserBody, SANDBOX_KEY, startHarness } from './testing/platform-harness';

/**
 * Walking a list with Stripe's cursors while users keep arriving. The platform's clock stands still (the test's,
 * which every process of the split topology reads too), so every user is created within one millisecond: only
 * the log position can order them.
 */
describe('list cursors (startingAfter, endingBefore) over /v1', () => {
  let h: Harness;
  let key: { 'x-api-key': string };
  const clock = new ManualClock('2026-03-01T12:00:00.000Z');
  const ids = (body: { items: { id: string }[] }) => body.items.map((item) => item.id);

  beforeAll(async () => {
    h = await startHarness({ clock });
    key = { 'x-api-key': (await h.newDistributor()).sandboxKey };
  });
  afterAll(async () => {
    await h.close();
  });

  const createUser = async (): Promise<string> => {
    const response = await h.http
      .post('/v1/users')
      .set({ ...key, 'content-type': 'application/json' })
      .send(newUserBody());
    expect(response.status).toBe(201);
    return response.body.id;
  };
  const createUsers = async (count: number): Promise<string[]> => {
    const created: string[] = [];
    for (let i = 0; i < count; i++) created.push(await createUser());
    return created;
  };
  const list = (query: Record<string, unknown>, apiKey: Record<string, string> = key) =>
    h.http.get('/v1/users').query(query).set(apiKey);

  /** Reads pages until `hasMore` is false, creating users between two reads; returns the ids in order. */
  async function walk(
    first: Record<string, unknown>,
    cursorOf: (page: string[]) => Record<string, string>,
  ): Promise<{ walked: string[]; arrived: string[] }> {
    const walked: string[] = [];
    const arrived: string[] = [];
    let query = first;
    for (let reads = 1; ; reads++) {
      if (reads > 40) throw new Error(`the walk did not reach the end of the list in 40 pages`);
      const response = await list(query);
      expect(response.status).toBe(200);
      expect(response.body.page).toBe(0);
      const page = ids(response.body);
      walked.push(...page);
      if (!response.body.hasMore) return { walked, arrived };
      expect(page).toHaveLength(4);
      arrived.push(...(await createUsers(2)));
      query = { limit: 4, ...cursorOf(page) };
    }
  }

  it('orders users created in one millisecond by creation, fromPage pages included', async () => {
    const created = await createUsers(9);
    const pages: string[][] = [];
    for (const fromPage of [0, 1, 2]) pages.push(ids((await list({ limit: 4, fromPage })).body));
    expect(pages.flat()).toEqual([...created].reverse());
    const ascending = await list({ limit: 100, sortBy: 'createdAt' });
    expect(ids(ascending.body)).toEqual(created);
    expect(new Set(ascending.body.items.map((u: { createdAt: string }) => u.createdAt))).toEqual(
      new Set([clock.now().toISOString()]),
    );
  });

  it('walks forward with startingAfter, and back with endingBefore, seeing every user once while more arrive', async () => {
    const before = ids((await list({ limit: 100 })).body);
    const initial = [...before.reverse(), ...(await createUsers(16))];
    const newestFirst = [...initial].reverse();

    // Newest first: users created during the walk are newer than its start, so they are never in it.
    const forward = await walk({ limit: 4 }, (page) => ({ startingAfter: page[page.length - 1] }));
    expect(forward.walked).toEqual(newestFirst);

    // From the oldest user back to the newest: each page is still newest first, pages come from the oldest
    // end, and the users created meanwhile (the newest) are reached last, each once.
    const backward = await walk({ limit: 4, endingBefore: initial[0] }, (page) => ({
      endingBefore: page[0],
    }));
    const newerThanOldest = [...initial, ...forward.arrived, ...backward.arrived].slice(1);
    const expected: string[] = [];
    for (let start = 0; start < newerThanOldest.length; start += 4)
      expected.push(...newerThanOldest.slice(start, start + 4).reverse());
    expect(backward.walked).toEqual(expected);
  });

  it('walks another list (/v1/events) with a cursor: the same Event records as one big page', async () => {
    const all = await h.http.get('/v1/events').query({ limit: 100 }).set(key);
    expect(all.status).toBe(200);
    const walked: string[] = [];
    let query: Record<string, unknown> = { limit: 7 };
    for (let reads = 1; ; reads++) {
      if (reads > 40) throw new Error('the events walk did not reach the end in 40 pages');
      const page = await h.http.get('/v1/events').query(query).set(key);
      walked.push(...page.body.items.map((event: { eventId: string }) => event.eventId));
      if (!page.body.hasMore) break;
      query = { limit: 7, startingAfter: walked[walked.length - 1] };
    }
    expect(walked).toEqual(all.body.items.map((event: { eventId: string }) => event.eventId));
  });

  it.each([
    [{ startingAfter: 'usr-1', limit: 2 }, 'startingAfter'],
    [{ endingBefore: 'not an id' }, 'endingBefore'],
    [{ startingAfter: 'usr-0f8fad5b-d9cb-469f-a165-70867728950e', fromPage: 1 }, 'startingAfter'],
  ])('refuses %j with 400 validation_error naming %s', async (query, field) => {
    const response = await list(query);
    expect(response.status).toBe(400);
    expect(response.body.error.code).toBe('validation_error');
    expect(response.body.error.details.map((d: { field: string }) => d.field)).toContain(field);
  });

  it('refuses both cursors at once, naming both', async () => {
    const [a, b] = ids((await list({ limit: 2 })).body);
    const response = await list({ startingAfter: a, endingBefore: b });
    expect(response.status).toBe(400);
    expect(response.body.error.details.map((d: { field: string }) => d.field).sort()).toEqual([
      'endingBefore',
      'startingAfter',
    ]);
    expect((await list({ startingAfter: a, fromPage: 0 })).status).toBe(200);
  });

  it("answers a cursor that is not one of the caller's items of the list with 400, never a 500", async () => {
    const ownUser = ids((await list({ limit: 1 })).body)[0];
    const theirs = (
      await h.http
        .post('/v1/users')
        .set({ 'x-api-key': SANDBOX_KEY, 'content-type': 'application/json' })
        .send(newUserBody())
    ).body.id;
    // An id of the caller's, but of another list.
    const anEventId = (await h.http.get('/v1/events').query({ limit: 1 }).set(key)).body.items[0].eventId;
    for (const cursor of [
      { startingAfter: 'usr-0f8fad5b-d9cb-469f-a165-70867728950e' },
      { endingBefore: theirs },
      { startingAfter: anEventId },
    ]) {
      const response = await list(cursor);
      expect(response.status).toBe(400);
      expect(response.body.error).toEqual({
        code: 'validation_error',
        message: `No such item for ${Object.keys(cursor)[0]}: ${Object.values(cursor)[0]}`,
        details: [{ field: Object.keys(cursor)[0], message: expect.any(String) }],
      });
    }
    // The same user id works for its owner, in either direction.
    expect((await list({ endingBefore: ownUser })).status).toBe(200);
  });
});
