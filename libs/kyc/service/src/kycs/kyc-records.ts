import { DomainError, Environment, ownedBy } from '@cip/shared/contracts';
import { callerContext, CommandContext, EventStore, handleCommand, loadState } from '@cip/shared/eventing';
import { forTenant, type ReadStore } from '@cip/shared/read-store';
import type { Clock } from '@cip/shared/runtime';
import type { KycListFilter, KycResource } from '@cip/kyc/contract';
import { isKyc, KycCommand, kycDecider, KycRecord, KycState } from '@cip/kyc/domain';
import { KycView, kycsProjection, toKycView } from '@cip/kyc/read-models';
import type { IdentityVerificationProvider, KycScope, KycUserDirectory, KycUserFacts } from '../kyc.ports';
import type { SandboxIdentityProvider } from '../sandbox-provider/sandbox-identity-provider';

export interface KycServicePorts {
  eventStore(environment: Environment): EventStore;
  readStore(environment: Environment): ReadStore;
  /** Waits until the KYC projections have caught up with the log (read-your-writes for lists). */
  settle(environment: Environment): Promise<void>;
  users: KycUserDirectory;
  provider: IdentityVerificationProvider;
  /** The provider's hosted flow when it is the built-in sandbox provider (a vendor hosts its own). */
  hostedFlow: SandboxIdentityProvider | null;
}

/** A list filter of the API as equality filters of the read model (empty values filter nothing). */
export const listFilter = ({ userId, status, type }: KycListFilter) => ({
  userId: userId || undefined,
  status: status || undefined,
  type: type || undefined,
});

/**
 * What every part of the KYC context works through: commands on a KYC stream of the caller's distributor
 * (another tenant's KYC is not found), the user as the users contract shows it, the KYC read model, and the
 * resource the API returns (with the link while it works).
 */
export class KycRecords {
  constructor(
    readonly ports: KycServicePorts,
    readonly clock: Clock,
  ) {}

  context(scope: KycScope): CommandContext {
    return callerContext(this.clock.now(), scope);
  }

  async execute(scope: KycScope, kycId: string, build: (now: string) => KycCommand): Promise<KycRecord> {
    const context = this.context(scope);
    const result = await handleCommand(
      this.ports.eventStore(scope.environment),
      kycDecider,
      kycId,
      (state: KycState) => {
        this.ownedState(scope, kycId, state);
        return build(context.occurredAt);
      },
      context,
    );
    return result.state as KycRecord;
  }

  async owned(scope: KycScope, kycId: string): Promise<KycRecord> {
    const { state } = await loadState(this.ports.eventStore(scope.environment), kycDecider, kycId);
    return this.ownedState(scope, kycId, state);
  }

  /** The KYC, if it exists and belongs to the caller; another tenant's KYC is simply not found. */
  ownedState(scope: KycScope, kycId: string, state: KycState): KycRecord {
    return ownedBy(scope, isKyc(state) ? state : null, 'KYC', kycId);
  }

  async existingUser(scope: KycScope, userId: string): Promise<KycUserFacts> {
    const user = await this.ports.users.findUser(scope, userId);
    if (!user) {
      throw new DomainError('not_found', `User ${userId} was not found`, [
        { field: 'userId', message: 'no such user' },
      ]);
    }
    return user;
  }

  async find(scope: KycScope, filter: KycListFilter): Promise<KycView[]> {
    await this.ports.settle(scope.environment);
    const kycs = forTenant(this.ports.readStore, scope);
    const found: KycView[] = [];
    for (let page = 0; ; page++) {
      const result = await kycs.find<KycView>(kycsProjection.collection, listFilter(filter), {
        sort: { field: 'createdAt', direction: 'asc' },
        page,
        limit: 100,
      });
      found.push(...result.items);
      if (!result.hasMore) return found;
    }
  }

  resource(environment: Environment, kyc: KycRecord): KycResource {
    return this.viewResource(environment, toKycView(kyc));
  }

  /** The link is shown only while it works; it is derived from the session, never stored. */
  viewResource(environment: Environment, kyc: KycView): KycResource {
    const open =
      kyc.type !== 'import' &&
      kyc.status === 'pending' &&
      kyc.linkExpiresAt !== undefined &&
      this.clock.now().toISOString() < kyc.linkExpiresAt;
    return {
      kyc,
      accessUrl: open
        ? this.ports.provider.accessUrl({ environment, kycId: kyc.id, referenceId: kyc.referenceId })
        : null,
    };
  }
}
