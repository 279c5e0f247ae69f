import { Caller, DomainError } from '@cip/shared/contracts';
import type { EventStore } from '@cip/shared/eventing';
import { environmentStores, Infrastructure, openEmbeddedInfrastructure } from '@cip/shared/infrastructure';
import { systemClock } from '@cip/shared/runtime';
import { userPersonalData } from '@cip/users/domain';
import { createHash } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { UsersService } from './users.service';

const caller: Caller = {
  distributorId: 'dst-unique',
  environment: 'sandbox',
  requestId: 'req-unique',
  program: { allowedCountries: ['FR'], b2b: false, prepaid: false, kycImportEnabled: false },
};
const person = (email: string, firstName = 'Uma') => ({
  email,
  firstName,
  lastName: 'Unique',
  countryOfResidence: 'FR',
});

/** The same store without `appendMany`, as on EventStoreDB: creation reserves, then appends the user. */
const withoutAppendMany = (store: EventStore): EventStore =>
  new Proxy(store, {
    get: (target, name) => (name === 'appendMany' ? undefined : (Reflect.get(target, name) as unknown)),
  });

describe.each([
  ['with appendMany (reservation and user in one atomic append)', (store: EventStore) => store],
  ['without appendMany (reservation, then user)', withoutAppendMany],
])('UsersService: unique emails %s', (_, wrap) => {
  let dataDir: string;
  let infrastructure: Infrastructure;
  let users: UsersService;

  beforeEach(() => {
    dataDir = mkdtempSync(join(tmpdir(), 'cip-unique-'));
    infrastructure = openEmbeddedInfrastructure({ dataDir, personalData: { policies: [userPersonalData] } });
    const stores = environmentStores(infrastructure);
    users = new UsersService(
      {
        ...stores,
        eventStore: (environment) => wrap(stores.eventStore(environment)),
        settle: async () => undefined,
      },
      systemClock,
    );
  });
  afterEach(async () => {
    await infrastructure.close();
    rmSync(dataDir, { recursive: true, force: true });
  });

  const createdUsers = async () =>
    (await infrastructure.scope('sandbox').storedEventStore.readAll({ maxCount: 10_000 })).filter(
      (e) => e.type === 'UserCreated',
    );

  it('lets exactly one of many concurrent creations with the same email win; the others leave no user behind', async () => {
    const attempts = await Promise.allSettled(
      Array.from({ length: 20 }, (_, i) => users.createUser(caller, person('race@example.com', `Racer${i}`))),
    );
    const won = attempts.filter((a) => a.status === 'fulfilled');
    expect(won).toHaveLength(1);
    for (const lost of attempts.filter((a) => a.status === 'rejected')) {
      const reason = (lost as PromiseRejectedResult).reason;
      expect(reason).toBeInstanceOf(DomainError);
      expect(reason.code).toBe('duplicate_user_error');
    }
    const created = await createdUsers();
    expect(created.map((e) => e.streamId)).toEqual([
      (won[0] as PromiseFulfilledResult<{ id: string }>).value.id,
    ]);
  });

  it('refuses the email of an existing user, whatever its case, naming that user', async () => {
    const first = await users.createUser(caller, person('taken@example.com'));
    await expect(users.createUser(caller, person('TAKEN@example.com', 'Other'))).rejects.toMatchObject({
      code: 'duplicate_user_error',
      message: expect.stringContaining(first.id),
    });
    expect(await createdUsers()).toHaveLength(1);
  });

  it('refuses an email an earlier version reserved under its plain-hash stream, naming its owner', async () => {
    const owner = await users.createUser(caller, person('owner@example.com'));
    // What a version before keyed reservations wrote for `legacy@example.com` (and nothing under the new name).
    const legacyStream = `uniq-${createHash('sha256')
      .update(`${caller.distributorId}|email|legacy@example.com`)
      .digest('hex')
      .slice(0, 40)}`;
    await infrastructure.scope('sandbox').storedEventStore.append(
      legacyStream,
      [
        {
          type: 'UniqueValueReserved',
          data: { kind: 'email', ownerId: owner.id, at: '2026-11-01T10:00:00.000Z' },
          metadata: { eventId: 'evt-legacy', occurredAt: '2026-11-01T10:00:00.000Z', schemaVersion: 1 },
        },
      ],
      { expectedRevision: 'no_stream' },
    );
    await expect(users.createUser(caller, person('Legacy@example.com', 'Late'))).rejects.toMatchObject({
      code: 'duplicate_user_error',
      message: expect.stringContaining(owner.id),
    });
    expect(await createdUsers()).toHaveLength(1);
  });

  it('gives an erased user’s email to a new user', async () => {
    const first = await users.createUser(caller, person('freed@example.com'));
    await users.eraseUser(caller, first.id, {
      erasedBy: 'operator@example.com',
      reason: 'data subject request',
    });
    const second = await users.createUser(caller, person('freed@example.com', 'Next'));
    expect(second.id).not.toBe(first.id);
    expect(second.email).toBe('freed@example.com');
  });
});
