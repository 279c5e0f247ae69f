import type { Caller } from '@cip/shared/contracts';
import type { EventStore } from '@cip/shared/eventing';
import { environmentStores, Infrastructure, openEmbeddedInfrastructure } from '@cip/shared/infrastructure';
import { systemClock } from '@cip/shared/runtime';
import { userPersonalData } from '@cip/users/domain';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { UsersService } from './users.service';

const caller: Caller = {
  distributorId: 'dst-status',
  environment: 'sandbox',
  requestId: 'req-status',
  program: { allowedCountries: ['FR'], b2b: false, prepaid: false, kycImportEnabled: false },
};
const PERSON = {
  email: 'ines.status@example.com',
  firstName: 'Ines',
  lastName: 'Status',
  countryOfResidence: 'FR',
};

describe('UsersService.userStatus: the status alone, personal data left sealed', () => {
  let dataDir: string;
  let infrastructure: Infrastructure;
  let users: UsersService;
  /** What the users context reads for `userStatus`: the log as contexts see it (opened) must not be read. */
  let openedReads: string[];

  beforeEach(() => {
    dataDir = mkdtempSync(join(tmpdir(), 'cip-user-status-'));
    infrastructure = openEmbeddedInfrastructure({
      dataDir,
      personalData: { policies: [userPersonalData] },
    });
    openedReads = [];
    const stores = environmentStores(infrastructure);
    users = new UsersService(
      {
        ...stores,
        eventStore: (environment) => {
          const store = stores.eventStore(environment);
          // Counts the reads that open personal data; everything else goes to the store as it is.
          return new Proxy(store, {
            get: (target, name) =>
              name === 'readStream'
                ? (streamId: string, options?: object) => {
                    openedReads.push(streamId);
                    return target.readStream(streamId, options);
                  }
                : (Reflect.get(target, name) as unknown),
          }) as EventStore;
        },
        storedEventStore: (environment) => infrastructure.scope(environment).storedEventStore,
        settle: async () => undefined,
      },
      systemClock,
    );
  });
  afterEach(async () => {
    await infrastructure.close();
    rmSync(dataDir, { recursive: true, force: true });
  });

  it('follows the user through its statuses without opening its personal data', async () => {
    const { id } = await users.createUser(caller, PERSON);
    openedReads = [];
    expect(await users.userStatus(caller, id)).toBe('onboarding');
    await users.changeStatus(caller, id, 'active', 'kyc');
    openedReads = [];
    expect(await users.userStatus(caller, id)).toBe('active');
    await users.changeStatus(caller, id, 'frozen', 'operator');
    openedReads = [];
    expect(await users.userStatus(caller, id)).toBe('frozen');
    expect(openedReads).toEqual([]);
  });

  it('sees the status another process changed since it last answered', async () => {
    const { id } = await users.createUser(caller, PERSON);
    expect(await users.userStatus(caller, id)).toBe('onboarding');
    const replica = openEmbeddedInfrastructure({ dataDir, personalData: { policies: [userPersonalData] } });
    try {
      const elsewhere = new UsersService(
        { ...environmentStores(replica), settle: async () => undefined },
        systemClock,
      );
      await elsewhere.changeStatus(caller, id, 'active', 'kyc');
      expect(await users.userStatus(caller, id)).toBe('active');
      await elsewhere.changeStatus(caller, id, 'frozen', 'operator');
      expect(await users.userStatus(caller, id)).toBe('frozen');
    } finally {
      await replica.close();
    }
  });

  it("answers null for an unknown user and for another distributor's", async () => {
    const { id } = await users.createUser(caller, PERSON);
    expect(await users.userStatus(caller, 'usr-00000000-0000-4000-8000-000000000000')).toBeNull();
    expect(await users.userStatus({ ...caller, distributorId: 'dst-other' }, id)).toBeNull();
  });
});
