import type { ProgramDirectory } from '@cip/distributors/contract';
import type { PostalAddress } from '@cip/kyc/domain';
import { Caller, DomainError } from '@cip/shared/contracts';
import type { UserLifecycleApi } from '@cip/users/contract';
import type { KycScope, KycUserDirectory, KycUserFacts } from '../kyc.ports';

/**
 * The users context as the KYC context needs it (its port KycUserDirectory), over the users contract: the
 * users service in the same process, or its transport client in another. The program of the caller is the
 * distributor's current one.
 */
export class UsersForKyc implements KycUserDirectory {
  constructor(
    private readonly users: UserLifecycleApi,
    private readonly programs: ProgramDirectory,
  ) {}

  async findUser(scope: KycScope, userId: string): Promise<KycUserFacts | null> {
    const user = await this.users.findUser(await this.caller(scope), userId);
    return (
      user && {
        userId: user.id,
        status: user.status,
        firstName: user.firstName,
        lastName: user.lastName,
        countryOfResidence: user.countryOfResidence,
      }
    );
  }

  async activateUser(scope: KycScope, userId: string, reason: string, cause: string): Promise<void> {
    await this.users.changeStatus(await this.caller(scope), userId, 'active', reason, cause);
  }

  async freezeUser(scope: KycScope, userId: string, reason: string, cause: string): Promise<void> {
    await this.users.changeStatus(await this.caller(scope), userId, 'frozen', reason, cause);
  }

  async setShippingAddress(scope: KycScope, userId: string, address: PostalAddress): Promise<void> {
    await this.users.setVerifiedShippingAddress(await this.caller(scope), userId, address);
  }

  private async caller(scope: KycScope): Promise<Caller> {
    let program = this.programs.programOf(scope.distributorId);
    if (!program && this.programs.catchUp) {
      // A distributor created a moment ago by another process (the operator API of the dashboard): its first
      // user's KYC may reach this process before the control log's change did (seen on the split topology).
      await this.programs.catchUp();
      program = this.programs.programOf(scope.distributorId);
    }
    if (!program) throw new DomainError('not_found', `Distributor ${scope.distributorId} was not found`);
    return { ...scope, program };
  }
}
