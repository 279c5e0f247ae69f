import { Caller, DomainError } from '@cip/shared/contracts';
import { handleCommand } from '@cip/shared/eventing';
import { KeyedSerializer, newId } from '@cip/shared/runtime';
import type { KycResource } from '@cip/kyc/contract';
import {
  decideKyc,
  HostedKycType,
  IdentitySubmission,
  KycCommand,
  kycDecider,
  KycRecord,
  resumePlan,
  RfiSubtype,
} from '@cip/kyc/domain';
import type { KycScope } from '../kyc.ports';
import type { KycRecords } from './kyc-records';

/** Starting KYCs: hosted ones (a link for the user), RFIs raised by operators, imports, and resumes. */
export class KycStarts {
  /**
   * Starts of one user's KYC of one kind, one at a time in this process: each closes what the one before it
   * opened. Started together (a double click, a retry racing its original), each found no other pending
   * and all stayed open (10 at once left 9 pending). Replicas of the KYC service do not share this: two
   * starts of one user on two replicas at the same moment can still leave two links open (ARCHITECTURE.md).
   */
  private readonly starts = new KeyedSerializer();

  constructor(private readonly records: KycRecords) {}

  startHostedKyc(
    caller: Caller,
    input: { userId: string; type: HostedKycType; rfiSubtype?: RfiSubtype },
  ): Promise<KycResource> {
    const kind = [caller.environment, caller.distributorId, input.userId, input.type, input.rfiSubtype ?? ''];
    return this.starts.run(kind.join('|'), () => this.startHostedKycNow(caller, input));
  }

  private async startHostedKycNow(
    caller: Caller,
    input: { userId: string; type: HostedKycType; rfiSubtype?: RfiSubtype },
  ): Promise<KycResource> {
    await this.records.existingUser(caller, input.userId);
    // One open link per user and kind: starting again closes the previous pending one (kyc.revoked).
    const open = await this.records.find(caller, {
      userId: input.userId,
      type: input.type,
      status: 'pending',
    });
    for (const previous of open.filter((k) => (k.rfiSubtype ?? null) === (input.rfiSubtype ?? null))) {
      await this.records
        .execute(caller, previous.id, (now) => ({
          type: 'RevokeKyc',
          data: { reason: 'superseded by a new KYC of the same type', now },
        }))
        .catch((error: unknown) => {
          // It moved on in the meantime (submitted, expired): nothing left to close.
          if (!(error instanceof DomainError)) throw error;
        });
    }
    return this.start(caller, input.userId, input.type, input.rfiSubtype);
  }

  /** An RFI raised by the operator's compliance staff (CLI); the user answers through the link. */
  async raiseRfi(scope: KycScope, userId: string, rfiSubtype: RfiSubtype): Promise<KycResource> {
    await this.records.existingUser(scope, userId);
    return this.start(scope, userId, 'rfi', rfiSubtype);
  }

  async importKyc(
    caller: Caller,
    input: { userId: string; identity: Omit<IdentitySubmission, 'kind'> },
  ): Promise<KycResource> {
    const kycId = newId('kyc');
    const now = this.records.clock.now().toISOString();
    const command: KycCommand = {
      type: 'StartKyc',
      data: {
        kycId,
        userId: input.userId,
        distributorId: caller.distributorId,
        kycType: 'import',
        provider: this.records.ports.provider.name,
        referenceId: 'pending',
        submission: { kind: 'identity', ...input.identity },
        importEnabled: caller.program.kycImportEnabled,
        now,
      },
    };
    // A dry run of the rules first: the contract addendum is checked before anything else (so a distributor
    // without it learns nothing more) and before a provider session is opened.
    decideKyc(command, { status: 'absent' });
    await this.records.existingUser(caller, input.userId);
    const { referenceId } = await this.records.ports.provider.openSession({
      environment: caller.environment,
      kycId,
      type: 'import',
    });
    const result = await handleCommand(
      this.records.ports.eventStore(caller.environment),
      kycDecider,
      kycId,
      { ...command, data: { ...command.data, referenceId } },
      this.records.context(caller),
      { expectNew: true },
    );
    return this.records.resource(caller.environment, result.state as KycRecord);
  }

  private async start(
    scope: KycScope,
    userId: string,
    type: HostedKycType,
    rfiSubtype?: RfiSubtype,
  ): Promise<KycResource> {
    const kycId = newId('kyc');
    const { referenceId } = await this.records.ports.provider.openSession({
      environment: scope.environment,
      kycId,
      type,
    });
    const context = this.records.context(scope);
    const result = await handleCommand(
      this.records.ports.eventStore(scope.environment),
      kycDecider,
      kycId,
      {
        type: 'StartKyc',
        data: {
          kycId,
          userId,
          distributorId: scope.distributorId,
          kycType: type,
          rfiSubtype,
          provider: this.records.ports.provider.name,
          referenceId,
          importEnabled: false,
          now: context.occurredAt,
        },
      },
      context,
      { expectNew: true },
    );
    return this.records.resource(scope.environment, result.state as KycRecord);
  }

  async resumeKyc(caller: Caller, kycId: string): Promise<KycResource & { created: boolean }> {
    const kyc = await this.records.owned(caller, kycId);
    if (resumePlan(kyc) === 'start_new') {
      const started = await this.start(
        caller,
        kyc.userId,
        kyc.type as HostedKycType,
        kyc.rfiSubtype ?? undefined,
      );
      return { ...started, created: true };
    }
    const { referenceId } = await this.records.ports.provider.openSession({
      environment: caller.environment,
      kycId,
      type: kyc.type as HostedKycType,
    });
    const state = await this.records.execute(caller, kycId, (now) => ({
      type: 'ResumeKyc',
      data: { referenceId, now },
    }));
    return { ...this.records.resource(caller.environment, state), created: false };
  }
}
