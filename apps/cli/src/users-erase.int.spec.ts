import { PLATFORM_PERSONAL_DATA } from '@cip/platform/registry';
import type { Caller } from '@cip/shared/contracts';
import { environmentStores, Infrastructure, openEmbeddedInfrastructure } from '@cip/shared/infrastructure';
import { systemClock } from '@cip/shared/runtime';
import { UsersService } from '@cip/users/service';
import Database from 'better-sqlite3';
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { runCliCaptured } from './testing/run-cli-captured';

/** Values no other part of the data directory could hold by chance. */
const PERSON = {
  email: 'quintessa.erasure-test@example.com',
  firstName: 'Quintessa',
  lastName: 'Vandermolen',
  countryOfResidence: 'FR',
};
const PHONE = { country: '+33', number: '698765432' };
const PERSONAL = [PERSON.email, PERSON.firstName, PERSON.lastName, PHONE.number];

describe('cli: users erase (crypto-shredding of a person)', () => {
  let dataDir: string;
  const cli = (...argv: string[]) =>
    runCliCaptured([...argv, '--data-dir', dataDir], { env: { USER: 'lee' } });

  /** The data directory as the platform opens it (the same personal-data policies). */
  const withUsers = async <T>(use: (users: UsersService, infrastructure: Infrastructure) => Promise<T>) => {
    const infrastructure = openEmbeddedInfrastructure({
      dataDir,
      personalData: { policies: PLATFORM_PERSONAL_DATA },
    });
    try {
      return await use(
        new UsersService(
          { ...environmentStores(infrastructure), settle: async () => undefined },
          systemClock,
        ),
        infrastructure,
      );
    } finally {
      await infrastructure.close();
    }
  };

  /** A distributor created through the CLI, as the caller of its sandbox. */
  const newDistributor = async (): Promise<Caller> => {
    const created = await cli('distributors', 'create', '--name', 'Acme', '--countries', 'FR', '--json');
    return {
      distributorId: JSON.parse(created.stdout).distributorId as string,
      environment: 'sandbox',
      requestId: 'req-1',
      program: { allowedCountries: ['FR'], b2b: false, prepaid: false, kycImportEnabled: false },
    };
  };

  /** The data of a stream's events as it is on disk, read without the platform's code. */
  const storedData = (streamId: string): string[] => {
    const db = new Database(join(dataDir, 'sandbox.sqlite'), { readonly: true });
    try {
      return (
        db.prepare('SELECT data FROM events WHERE stream_id = ?').all(streamId) as { data: string }[]
      ).map((row) => row.data);
    } finally {
      db.close();
    }
  };

  /** Every byte of the environment's database files (WAL included), as a backup would copy them. */
  const fileBytes = () =>
    Buffer.concat(
      ['sandbox.sqlite', 'sandbox.sqlite-wal']
        .map((name) => join(dataDir, name))
        .filter((path) => existsSync(path))
        .map((path) => readFileSync(path)),
    );

  beforeEach(() => {
    dataDir = mkdtempSync(join(tmpdir(), 'cip-cli-erase-'));
  });
  afterEach(() => rmSync(dataDir, { recursive: true, force: true }));

  it("keeps a new user's identity out of the log in clear: its events carry it sealed", async () => {
    const caller = await newDistributor();
    const user = await withUsers(async (users) => {
      const { id } = await users.createUser(caller, PERSON);
      return users.setPhone(caller, id, PHONE);
    });
    expect(user).toMatchObject({ email: PERSON.email, firstName: PERSON.firstName, phone: PHONE });

    const rows = storedData(user.id);
    expect(rows).toHaveLength(2);
    for (const row of rows) {
      for (const value of PERSONAL) expect(row).not.toContain(value);
      expect(JSON.parse(row).personal).toMatchObject({ enc: 'v1', keyId: user.id });
    }
    // The uniqueness reservations are named by a keyed hash: nothing there to hash guesses against.
    const exported = await cli('export', 'log', '--env', 'sandbox');
    for (const value of PERSONAL) expect(exported.stdout).not.toContain(value);
  });

  it('erases a person: a pseudonymous record in the API, the rebuilt read models and the export, and no byte of it left in the database file', async () => {
    const caller = await newDistributor();
    const { distributorId } = caller;
    const userId = await withUsers(async (users) => {
      const { id } = await users.createUser(caller, PERSON);
      await users.setPhone(caller, id, PHONE);
      await users.changeStatus(caller, id, 'active', 'kyc');
      return id;
    });
    // The read models (users, public Events) hold the person in clear, as the platform serves them.
    expect(await cli('projections', 'rebuild', 'all', '--env', 'sandbox')).toMatchObject({ code: 0 });
    expect(fileBytes().includes(PERSON.lastName)).toBe(true);

    const erased = await cli(
      'users',
      'erase',
      '--user',
      userId,
      '--reason',
      'DSR-2026-0042',
      '--env',
      'sandbox',
    );
    expect(erased).toMatchObject({ code: 0, stderr: '' });
    expect(erased.stdout).toContain(`User ${userId} is erased (deleted)`);

    // Read by id (folded from the log): a pseudonymous record.
    await withUsers(async (users) => {
      expect(await users.getUser(caller, userId)).toEqual({
        id: userId,
        distributorId,
        email: null,
        firstName: null,
        lastName: null,
        phone: null,
        shippingAddress: null,
        countryOfResidence: 'FR',
        status: 'deleted',
        createdAt: expect.any(String),
        updatedAt: expect.any(String),
      });
    });

    expect(await cli('projections', 'rebuild', 'all', '--env', 'sandbox')).toMatchObject({ code: 0 });
    await withUsers(async (users, infrastructure) => {
      const listed = await users.listUsers(
        caller,
        {},
        { sort: { field: 'createdAt', direction: 'asc' }, page: 0, limit: 10 },
      );
      expect(listed.items).toEqual([
        expect.objectContaining({ id: userId, email: null, firstName: null, lastName: null, phone: null }),
      ]);
      const records = await infrastructure.scope('sandbox').readStore.all('events');
      expect(records.map((r) => r.eventName)).toEqual(
        expect.arrayContaining(['user.created', 'user.phoneNumberSet', 'user.activated', 'user.deleted']),
      );
      for (const record of records) {
        expect(record.data).toMatchObject({ email: null, firstName: null, lastName: null, phone: null });
      }
    });

    const stream = await cli('export', 'stream', userId, '--env', 'sandbox');
    expect(stream.code).toBe(0);
    expect(
      stream.stdout
        .trim()
        .split('\n')
        .map((line) => JSON.parse(line).type),
    ).toEqual(['UserCreated', 'UserPhoneNumberSet', 'UserActivated', 'UserDeleted', 'UserErased']);
    expect(stream.stdout).toContain('"erasedBy":"operator:lee","reason":"DSR-2026-0042"');

    const bytes = fileBytes();
    for (const value of PERSONAL)
      expect({ value, found: bytes.includes(value) }).toEqual({ value, found: false });

    // The email is free again: the erased user no longer holds it.
    await withUsers(async (users) => {
      expect(await users.createUser(caller, PERSON)).toMatchObject({ email: PERSON.email });
    });
  });

  it('refuses to erase a user that does not exist, changing nothing', async () => {
    const refused = await cli('users', 'erase', '--user', 'usr-nobody', '--reason', 'x', '--env', 'sandbox');
    expect(refused).toMatchObject({ code: 1, stderr: expect.stringContaining('usr-nobody was not found') });
  });
});
