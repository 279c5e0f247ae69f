import {
  DeclinedCode,
  decideKyc,
  HostedKycType,
  IDENTITY_KYC_TYPES,
  IdentitySubmission,
  isCompleteIdentity,
  isHosted,
  isKyc,
  KycCommand,
  kycDecider,
  KycRecord,
  KycState,
  KycSubmission,
  linkIsOpen,
  PostalAddress,
  resumePlan,
  RfiSubtype,
  UserNotActivatedReason,
} from '@cip/kyc/domain';
import { KycView, kycsProjection, toKycView } from '@cip/kyc/read-models';
import { Caller, DomainError, Environment, ENVIRONMENTS, FindPage, notFound } from '@cip/shared/contracts';
import { CommandContext, EventStore, handleCommand, loadState, callerContext } from '@cip/shared/eventing';
import type { FindResult, ReadStore } from '@cip/shared/read-store';
import { Clock, newId } from '@cip/shared/runtime';
import type {
  HostedSession,
  KycApi,
  KycHostedPagesApi,
  KycListFilter,
  KycOperatorApi,
  KycResource,
  KycSimulationApi,
  SimulatedOutcome,
} from '@cip/kyc/contract';
import {
  IdentityVerificationProvider,
  kycEffectCause,
  KycScope,
  KycUserDirectory,
  KycUserFacts,
} from './kyc.ports';
import { hostedFormOf, parseHostedForm } from './sandbox-provider/hosted-form';
import { SandboxIdentityProvider } from './sandbox-provider/sandbox-identity-provider';

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

const STATUS_REASONS: Partial<Record<KycUserFacts['status'], UserNotActivatedReason>> = {
  frozen: 'userFrozen',
  disabled: 'userDisabled',
  revoked: 'userRevoked',
  deleted: 'userDeleted',
};

/** What the sandbox's simulated `complete` submits on the user's behalf. */
function simulatedSubmission(kyc: KycRecord, user: KycUserFacts): KycSubmission {
  const address: PostalAddress = {
    addressLine1: '1 Sandbox Street',
    city: 'Sandbox City',
    postalCode: '10000',
    country: user.countryOfResidence,
  };
  switch (kyc.type) {
    case 'shipping':
      return { kind: 'shipping', shippingAddress: address };
    case 'rfi':
      return { kind: 'rfi', explanation: 'Simulated answer to the request for information (sandbox).' };
    default:
      return {
        kind: 'identity',
        firstName: user.firstName,
        lastName: user.lastName,
        dateOfBirth: '1990-01-01',
        address,
        ...(kyc.type === 'full' ? { documentNumber: 'SANDBOX-0000' } : {}),
      };
  }
}

/**
 * The KYC context's command and query handlers. The review's effects on the user (activation, the
 * shipping address) are applied before the outcome is appended, so `kyc.verified` states truthfully
 * whether the user was activated; both effects are idempotent, so a review retried after a crash
 * completes without doing anything twice. Activation is keyed by its cause (this KYC verified): a retry
 * after the user's status was changed since (e.g. made unverified by an operator) does not activate again.
 */
export class KycService implements KycApi, KycOperatorApi, KycSimulationApi, KycHostedPagesApi {
  constructor(
    private readonly ports: KycServicePorts,
    private readonly clock: Clock,
  ) {}

  private context(scope: KycScope): CommandContext {
    return callerContext(this.clock.now(), scope);
  }

  // -------------------------------------------------------------------------------------------------
  // Starting
  // -------------------------------------------------------------------------------------------------

  async startHostedKyc(
    caller: Caller,
    input: { userId: string; type: HostedKycType; rfiSubtype?: RfiSubtype },
  ): Promise<KycResource> {
    await this.existingUser(caller, input.userId);
    // One open link per user and kind: starting again closes the previous pending one (kyc.revoked).
    const open = await this.find(caller, { userId: input.userId, type: input.type, status: 'pending' });
    for (const previous of open.filter((k) => (k.rfiSubtype ?? null) === (input.rfiSubtype ?? null))) {
      await this.execute(caller, previous.id, (now) => ({
        type: 'RevokeKyc',
        data: { reason: 'superseded by a new KYC of the same type', now },
      })).catch((error: unknown) => {
        // It moved on in the meantime (submitted, expired): nothing left to close.
        if (!(error instanceof DomainError)) throw error;
      });
    }
    return this.start(caller, input.userId, input.type, input.rfiSubtype);
  }

  /** An RFI raised by the operator's compliance staff (CLI); the user answers through the link. */
  async raiseRfi(scope: KycScope, userId: string, rfiSubtype: RfiSubtype): Promise<KycResource> {
    await this.existingUser(scope, userId);
    return this.start(scope, userId, 'rfi', rfiSubtype);
  }

  async importKyc(
    caller: Caller,
    input: { userId: string; identity: Omit<IdentitySubmission, 'kind'> },
  ): Promise<KycResource> {
    const kycId = newId('kyc');
    const now = this.clock.now().toISOString();
    const command: KycCommand = {
      type: 'StartKyc',
      data: {
        kycId,
        userId: input.userId,
        distributorId: caller.distributorId,
        kycType: 'import',
        provider: this.ports.provider.name,
        referenceId: 'pending',
        submission: { kind: 'identity', ...input.identity },
        importEnabled: caller.program.kycImportEnabled,
        now,
      },
    };
    // A dry run of the rules first: the contract addendum is checked before anything else (so a distributor
    // without it learns nothing more) and before a provider session is opened.
    decideKyc(command, { status: 'absent' });
    await this.existingUser(caller, input.userId);
    const { referenceId } = await this.ports.provider.openSession({
      environment: caller.environment,
      kycId,
      type: 'import',
    });
    const result = await handleCommand(
      this.ports.eventStore(caller.environment),
      kycDecider,
      kycId,
      { ...command, data: { ...command.data, referenceId } },
      this.context(caller),
      { expectNew: true },
    );
    return this.resource(caller.environment, result.state as KycRecord);
  }

  private async start(
    scope: KycScope,
    userId: string,
    type: HostedKycType,
    rfiSubtype?: RfiSubtype,
  ): Promise<KycResource> {
    const kycId = newId('kyc');
    const { referenceId } = await this.ports.provider.openSession({
      environment: scope.environment,
      kycId,
      type,
    });
    const context = this.context(scope);
    const result = await handleCommand(
      this.ports.eventStore(scope.environment),
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
          provider: this.ports.provider.name,
          referenceId,
          importEnabled: false,
          now: context.occurredAt,
        },
      },
      context,
      { expectNew: true },
    );
    return this.resource(scope.environment, result.state as KycRecord);
  }

  // -------------------------------------------------------------------------------------------------
  // Reading
  // -------------------------------------------------------------------------------------------------

  async getKyc(caller: Caller, kycId: string): Promise<KycResource> {
    return this.resource(caller.environment, await this.owned(caller, kycId));
  }

  async listKycs(caller: Caller, filter: KycListFilter, page: FindPage): Promise<FindResult<KycResource>> {
    await this.ports.settle(caller.environment);
    const equality: Record<string, string> = { distributorId: caller.distributorId };
    for (const [field, value] of Object.entries(filter)) if (value) equality[field] = value;
    const result = await this.ports
      .readStore(caller.environment)
      .find<KycView>(kycsProjection.collection, { ...page, filter: equality });
    return {
      hasMore: result.hasMore,
      items: result.items.map((kyc) => this.viewResource(caller.environment, kyc)),
    };
  }

  // -------------------------------------------------------------------------------------------------
  // Resume
  // -------------------------------------------------------------------------------------------------

  async resumeKyc(caller: Caller, kycId: string): Promise<KycResource & { created: boolean }> {
    const kyc = await this.owned(caller, kycId);
    if (resumePlan(kyc) === 'start_new') {
      const started = await this.start(
        caller,
        kyc.userId,
        kyc.type as HostedKycType,
        kyc.rfiSubtype ?? undefined,
      );
      return { ...started, created: true };
    }
    const { referenceId } = await this.ports.provider.openSession({
      environment: caller.environment,
      kycId,
      type: kyc.type as HostedKycType,
    });
    const state = await this.execute(caller, kycId, (now) => ({
      type: 'ResumeKyc',
      data: { referenceId, now },
    }));
    return { ...this.resource(caller.environment, state), created: false };
  }

  // -------------------------------------------------------------------------------------------------
  // Review and the other outcomes
  // -------------------------------------------------------------------------------------------------

  async simulate(
    caller: Caller,
    kycId: string,
    outcome: SimulatedOutcome,
    declinedCode?: DeclinedCode,
  ): Promise<KycResource> {
    const kyc = await this.owned(caller, kycId);
    let state: KycRecord;
    switch (outcome) {
      case 'complete': {
        const submission = simulatedSubmission(kyc, await this.existingUser(caller, kyc.userId));
        state = await this.execute(caller, kycId, (now) => ({
          type: 'SubmitKyc',
          data: { submission, now },
        }));
        break;
      }
      case 'approve':
      case 'decline':
        state = await this.decide(caller, kyc, outcome, declinedCode);
        break;
      case 'fail':
        state = await this.execute(caller, kycId, (now) => ({
          type: 'FailKyc',
          data: { reason: 'simulated processing failure', now },
        }));
        break;
      case 'expire':
        state = await this.execute(caller, kycId, (now) => ({
          type: 'ExpireKyc',
          data: { dueOnly: false, now },
        }));
        break;
      default: {
        const unknown: never = outcome;
        throw new DomainError('validation_error', `Unknown outcome ${String(unknown)}`);
      }
    }
    return this.resource(caller.environment, state);
  }

  /**
   * An operator's review of a submitted KYC: the reviewer of production until a vendor's decisions are
   * wired in (the sandbox reviews through the simulations).
   */
  async review(
    caller: Caller,
    kycId: string,
    decision: 'approve' | 'decline',
    declinedCode?: DeclinedCode,
  ): Promise<KycResource> {
    const kyc = await this.owned(caller, kycId);
    return this.resource(caller.environment, await this.decide(caller, kyc, decision, declinedCode));
  }

  private decide(
    caller: Caller,
    kyc: KycRecord,
    decision: 'approve' | 'decline',
    declinedCode?: DeclinedCode,
  ): Promise<KycRecord> {
    if (decision === 'approve') return this.approve(caller, kyc);
    return this.execute(caller, kyc.kycId, (now) => ({ type: 'DeclineKyc', data: { declinedCode, now } }));
  }

  /**
   * Review approves. Identity KYCs decline instead when the country is outside the program's allow-list
   * (it can change at short notice), and activate the user unless activation must be skipped; a shipping
   * KYC sets the user's shipping address. Effects first, outcome event second (see the class comment).
   */
  private async approve(caller: Caller, kyc: KycRecord): Promise<KycRecord> {
    // Refuse a KYC that is not ready for review before touching the user.
    decideKyc(
      { type: 'ApproveKyc', data: { userActivated: false, now: this.clock.now().toISOString() } },
      kyc,
    );
    if (kyc.status === 'verified') return kyc;
    const user = await this.existingUser(caller, kyc.userId);
    const approveWith = (userActivated: boolean, userNotActivatedReason?: UserNotActivatedReason) =>
      this.execute(caller, kyc.kycId, (now) => ({
        type: 'ApproveKyc',
        data: { userActivated, userNotActivatedReason, now },
      }));

    if (kyc.type === 'shipping') {
      if (kyc.submission?.kind !== 'shipping') throw new Error(`KYC ${kyc.kycId} has no shipping address`);
      await this.ports.users.setShippingAddress(caller, kyc.userId, kyc.submission.shippingAddress);
      return approveWith(user.status === 'active');
    }
    if (!IDENTITY_KYC_TYPES.includes(kyc.type)) return approveWith(user.status === 'active');

    const identity = kyc.submission?.kind === 'identity' ? kyc.submission : null;
    const countries = [user.countryOfResidence, identity?.address?.country].filter((c): c is string =>
      Boolean(c),
    );
    if (countries.some((country) => !caller.program.allowedCountries.includes(country.toUpperCase()))) {
      return this.execute(caller, kyc.kycId, (now) => ({
        type: 'DeclineKyc',
        data: { declinedCode: 'prohibitedCountry', now },
      }));
    }
    const skipped = await this.activationBlocker(caller, kyc, user, identity);
    if (skipped) return approveWith(false, skipped);
    await this.ports.users.activateUser(
      caller,
      kyc.userId,
      `KYC ${kyc.kycId} verified`,
      kycEffectCause(kyc.kycId, 'verified'),
    );
    return approveWith(true);
  }

  private async activationBlocker(
    caller: Caller,
    kyc: KycRecord,
    user: KycUserFacts,
    identity: IdentitySubmission | null,
  ): Promise<UserNotActivatedReason | null> {
    const byStatus = STATUS_REASONS[user.status];
    if (byStatus) return byStatus;
    if (user.status === 'active') return null;
    const declined = await this.find(caller, { userId: kyc.userId, status: 'declined' });
    if (declined.some((k) => k.id !== kyc.kycId && IDENTITY_KYC_TYPES.includes(k.type)))
      return 'previousKycDeclined';
    if (!identity || !isCompleteIdentity(identity)) return 'incompleteDetails';
    return null;
  }

  // -------------------------------------------------------------------------------------------------
  // The hosted flow (sandbox provider)
  // -------------------------------------------------------------------------------------------------

  async openHostedSession(token: string): Promise<HostedSession | null> {
    const found = await this.resolveLink(token);
    if (!found || !linkIsOpen(found.kyc, this.clock.now().toISOString())) return null;
    return this.session(found.kyc);
  }

  async submitHostedForm(
    token: string,
    posted: Record<string, unknown>,
  ): Promise<
    | { submitted: true }
    | { errors: Record<string, string>; values: Record<string, string>; session: HostedSession }
    | null
  > {
    const found = await this.resolveLink(token);
    if (!found || !linkIsOpen(found.kyc, this.clock.now().toISOString())) return null;
    const session = this.session(found.kyc);
    const parsed = parseHostedForm(session.form, session.type, posted, this.clock.now());
    if ('errors' in parsed) return { ...parsed, session };
    const scope: KycScope = {
      distributorId: found.kyc.distributorId,
      environment: found.environment,
      requestId: `hosted_${found.kyc.referenceId}`,
    };
    try {
      await this.execute(scope, found.kyc.kycId, (now) => ({
        type: 'SubmitKyc',
        data: { submission: parsed.submission, now },
      }));
    } catch (error) {
      // Submitted twice, or the link died between the page load and the post.
      if (error instanceof DomainError && error.code === 'invalid_state_transition') return null;
      throw error;
    }
    return { submitted: true };
  }

  private session(kyc: KycRecord): HostedSession {
    const type = kyc.type as HostedKycType;
    return { kycId: kyc.kycId, type, form: hostedFormOf(type, kyc.rfiSubtype) };
  }

  /** The KYC a link token names, in the environment whose signature it carries. */
  private async resolveLink(token: string): Promise<{ kyc: KycRecord; environment: Environment } | null> {
    const links = this.ports.hostedFlow;
    const parsed = links?.parseToken(token);
    if (!links || !parsed) return null;
    for (const environment of ENVIRONMENTS) {
      const { state } = await loadState(this.ports.eventStore(environment), kycDecider, parsed.kycId);
      if (!isKyc(state) || !isHosted(state)) continue;
      if (
        links.verifies(parsed.signature, { environment, kycId: state.kycId, referenceId: state.referenceId })
      ) {
        return { kyc: state, environment };
      }
    }
    return null;
  }

  // -------------------------------------------------------------------------------------------------
  // Expiry (driven by KycExpiryScheduler)
  // -------------------------------------------------------------------------------------------------

  /** Expires a pending KYC whose link is past its 14 days; does nothing otherwise. */
  async expireIfDue(environment: Environment, kycId: string): Promise<boolean> {
    const { state } = await loadState(this.ports.eventStore(environment), kycDecider, kycId);
    if (!isKyc(state)) return false;
    const scope: KycScope = { distributorId: state.distributorId, environment, requestId: `expiry_${kycId}` };
    const result = await handleCommand(
      this.ports.eventStore(environment),
      kycDecider,
      kycId,
      { type: 'ExpireKyc', data: { dueOnly: true, now: this.clock.now().toISOString() } },
      this.context(scope),
    );
    return result.events.length > 0;
  }

  // -------------------------------------------------------------------------------------------------
  // Helpers
  // -------------------------------------------------------------------------------------------------

  private async execute(
    scope: KycScope,
    kycId: string,
    build: (now: string) => KycCommand,
  ): Promise<KycRecord> {
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

  private async owned(scope: KycScope, kycId: string): Promise<KycRecord> {
    const { state } = await loadState(this.ports.eventStore(scope.environment), kycDecider, kycId);
    return this.ownedState(scope, kycId, state);
  }

  /** The KYC, if it exists and belongs to the caller; another tenant's KYC is simply not found. */
  private ownedState(scope: KycScope, kycId: string, state: KycState): KycRecord {
    if (!isKyc(state) || state.distributorId !== scope.distributorId) throw notFound('KYC', kycId);
    return state;
  }

  private async existingUser(scope: KycScope, userId: string): Promise<KycUserFacts> {
    const user = await this.ports.users.findUser(scope, userId);
    if (!user) {
      throw new DomainError('not_found', `User ${userId} was not found`, [
        { field: 'userId', message: 'no such user' },
      ]);
    }
    return user;
  }

  private async find(scope: KycScope, filter: KycListFilter): Promise<KycView[]> {
    await this.ports.settle(scope.environment);
    const equality: Record<string, string> = { distributorId: scope.distributorId };
    for (const [field, value] of Object.entries(filter)) if (value) equality[field] = value;
    const found: KycView[] = [];
    for (let page = 0; ; page++) {
      const result = await this.ports.readStore(scope.environment).find<KycView>(kycsProjection.collection, {
        filter: equality,
        sort: { field: 'createdAt', direction: 'asc' },
        page,
        limit: 100,
      });
      found.push(...result.items);
      if (!result.hasMore) return found;
    }
  }

  private resource(environment: Environment, kyc: KycRecord): KycResource {
    return this.viewResource(environment, toKycView(kyc));
  }

  /** The link is shown only while it works; it is derived from the session, never stored. */
  private viewResource(environment: Environment, kyc: KycView): KycResource {
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
