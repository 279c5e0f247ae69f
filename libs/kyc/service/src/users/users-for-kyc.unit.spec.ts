import type { ProgramDirectory } from '@cip/distributors/contract';
import type { ProgramRules } from '@cip/shared/contracts';
import type { UserLifecycleApi, UserView } from '@cip/users/contract';
import { UsersForKyc } from './users-for-kyc';

describe('UsersForKyc: the users context as the KYC context reads it', () => {
  const scope = { environment: 'sandbox' as const, distributorId: 'dst-new', requestId: 'req_1' };
  const user = {
    id: 'usr-1',
    status: 'onboarding',
    firstName: 'Ann',
    lastName: 'Lee',
    countryOfResidence: 'FR',
  } as UserView;
  const users = { findUser: async () => user } as unknown as UserLifecycleApi;

  it("reads the control log's changes once before calling a distributor made a moment ago unknown", async () => {
    // The directory of this process learns of the new distributor only when it catches up.
    let known = false;
    const programs: ProgramDirectory = {
      programOf: (id) => (known && id === 'dst-new' ? ({} as ProgramRules) : null),
      catchUp: async () => {
        known = true;
      },
    };
    await expect(new UsersForKyc(users, programs).findUser(scope, 'usr-1')).resolves.toMatchObject({
      userId: 'usr-1',
      firstName: 'Ann',
    });
  });

  it('still answers 404 for a distributor the control log does not hold', async () => {
    const programs: ProgramDirectory = { programOf: () => null, catchUp: async () => undefined };
    await expect(new UsersForKyc(users, programs).findUser(scope, 'usr-1')).rejects.toMatchObject({
      code: 'not_found',
    });
  });
});
