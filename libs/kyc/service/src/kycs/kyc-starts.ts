import { Caller, DomainError } from '@cip/shared/contracts';
import { handleCommand, loadState } from '@cip/shared/eventing';
import { KeyedSerializer, newId } from '@cip/shared/runtime';
import type { KycResource } from '@cip/kyc/contract';
import {
  decideKyc,
  HostedKycType,
  IdentitySubmission,
  KycCommand,
  kycDecider,
  KycRecord,
  kycStartClaimsDecider,
  kycStartClaimsStream,
  resumePlan,
  RfiSubtype,
} from '@cip/kyc/domain';
import type { KycScope } from '../kyc.ports';
import type { KycRecords } from './kyc-records';

/** Starting KYCs: hosted ones (a link for the user), RFIs raised by operators, imports, and resumes. */
export class KycStarts {
  /**
   * Starts of one user's KYC of one kind, one at a time in this process, so that they claim their turn
   * (`kycStartClaimsDecider`) one after the other instead of conflicting on the claims stream. Replicas of the
   * KYC service each have their own: between them the claims' expected revisions decide the order.
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

  /**
   * One open link per user and kind: a start closes the one it supersedes (kyc.revoked). Started together
   * (a double click, a retry racing its original, on one replica or several), each start claims its turn
   * first, so each knows the one before it; that one's KYC may not exist yet (its start is still creating
   * it), in which case its start, finding itself superseded once its KYC exists, closes it itself.
   */
  private async startHostedKycNow(
    caller: Caller,
    input: { userId: string; type: HostedKycType; rfiSubtype?: RfiSubtype },
  ): Promise<KycResource> {
    await this.records.existingUser(caller, input.userId);
    const store = this.records.ports.eventStore(caller.environment);
    const claims = kycStartClaimsStream(input.userId, input.type, input.rfiSubtype);
    // Listed before the claim: a KYC is created after its start claimed, so every claimed one the list shows
    // is in the claims the claim below reads, and only those no start claimed (started before the claims
    // existed) are closed from the list; a claimed one may be a newer start's, and stays open.
    const open = await this.records.find(caller, {
      userId: input.userId,
      type: input.type,
      status: 'pending',
    });
    const kycId = newId('kyc');
    const context = this.records.context(caller);
    const { state: claimed } = await handleCommand(
      store,
      kycStartClaimsDecider,
      claims,
      { type: 'ClaimKycStart', data: { kycId, now: context.occurredAt } },
      context,
      // Each conflict means another start claimed in between (on another replica): decided again on the
      // fresh stream, the claim still goes through.
      { maxAttempts: 20 },
    );
    const superseded = new Set(claimed.superseded ? [claimed.superseded] : []);
    for (const kyc of open) {
      const sameKind = (kyc.rfiSubtype ?? null) === (input.rfiSubtype ?? null);
      if (sameKind && !claimed.claimed.includes(kyc.id)) superseded.add(kyc.id);
    }
    for (const previous of superseded) await this.closeSuperseded(caller, previous);
    const started = await this.start(caller, input.userId, input.type, input.rfiSubtype, kycId);
    const { state } = await loadState(store, kycStartClaimsDecider, claims);
    if (state.latest === kycId) return started;
    // Superseded while it was being created: the newer start could not close it, so this one does.
    await this.closeSuperseded(caller, kycId);
    return this.records.resource(caller.environment, await this.records.owned(caller, kycId));
  }

  /** Revokes a pending KYC that a newer start superseded. */
  private async closeSuperseded(scope: KycScope, kycId: string): Promise<void> {
    await this.records
      .execute(scope, kycId, (now) => ({
        type: 'RevokeKyc',
        data: { reason: 'superseded by a new KYC of the same type', now },
      }))
      .catch((error: unknown) => {
        // Moved on in the meantime (submitted, expired: nothing left to close), or not created yet (its own
        // start closes it once it exists).
        if (!(error instanceof DomainError)) throw error;
      });
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
    kycId = newId('kyc'),
  ): Promise<KycResource> {
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
