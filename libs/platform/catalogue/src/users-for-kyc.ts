import type { DistributorDirectory } from '@cip/distributors/service';
import type { PostalAddress } from '@cip/kyc/domain';
import type { KycScope, KycUserDirectory, KycUserFacts } from '@cip/kyc/service';
import { DomainError } from '@cip/shared/contracts';
import type { UsersCaller, UsersService } from '@cip/users/service';

/**
 * The users context as the KYC context needs it (the port KycUserDirectory), over the users service of
 * the same process. The program rules of the caller come from the distributor's current configuration.
 */
export class UsersForKyc implements KycUserDirectory {
  constructor(
    private readonly users: UsersService,
    private readonly distributors: DistributorDirectory,
  ) {}

  async findUser(scope: KycScope, userId: string): Promise<KycUserFacts | null> {
    try {
      const user = await this.users.getUser(this.caller(scope), userId);
      return {
        userId: user.id,
        status: user.status,
        firstName: user.firstName,
        lastName: user.lastName,
        countryOfResidence: user.countryOfResidence,
      };
    } catch (error) {
      if (error instanceof DomainError && error.code === 'not_found') return null;
      throw error;
    }
  }

  async activateUser(scope: KycScope, userId: string, reason: string, cause: string): Promise<void> {
    await this.users.changeStatus(this.caller(scope), userId, 'active', reason, cause);
  }

  async freezeUser(scope: KycScope, userId: string, reason: string, cause: string): Promise<void> {
    await this.users.changeStatus(this.caller(scope), userId, 'frozen', reason, cause);
  }

  async setShippingAddress(scope: KycScope, userId: string, address: PostalAddress): Promise<void> {
    await this.users.updateShippingAddress(this.caller(scope), userId, address, 'kyc');
  }

  private caller(scope: KycScope): UsersCaller {
    const program = this.distributors.get(scope.distributorId)?.program;
    if (!program) throw new DomainError('not_found', `Distributor ${scope.distributorId} was not found`);
    return { ...scope, program };
  }
}
