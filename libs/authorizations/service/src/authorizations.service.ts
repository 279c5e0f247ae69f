import {
  AUTHORIZATION_ID_PREFIX,
  AUTHORIZATION_STATUSES,
  renderAuthorization,
  type AuthorizationListFilter,
  type AuthorizationsApi,
  type AuthorizationView,
} from '@cip/authorizations/contract';
import {
  authorizationDecider,
  authorizationEvents,
  decideAuthorization,
  isAuthorization,
  isCurrencyCode,
  merchantAmountText,
  priceAuthorization,
  type AuthorizationCommand,
  type AuthorizationEvent,
  type AuthorizationFacts,
  type AuthorizationProgram,
  type AuthorizationRecord,
  type ControlsOutcome,
  type LedgerInstruction,
  type ThreeDsOutcome,
} from '@cip/authorizations/domain';
import { authorizationsProjection } from '@cip/authorizations/read-models';
import {
  evaluateControls,
  type CardForAuthorization,
  type CardNetworkApi,
  type SpendRecord,
} from '@cip/cards/contract';
import type { ProgramDirectory } from '@cip/distributors/contract';
import {
  Caller,
  DomainError,
  Environment,
  FindPage,
  FindResult,
  notFound,
  ownedBy,
  type ProgramRules,
} from '@cip/shared/contracts';
import {
  handleCommand,
  loadState,
  type CommandContext,
  type EventStore,
  type RecordedEvent,
} from '@cip/shared/eventing';
import { forTenant, type ReadStore } from '@cip/shared/read-store';
import { KeyedSerializer, type Clock, type Logger } from '@cip/shared/runtime';
import type { ClearingPresentment } from '@cip/simulator/contract';
import type { ThreeDsVerificationApi } from '@cip/three-ds/contract';
import type { UserLifecycleApi } from '@cip/users/contract';
import type { LedgerContext, WalletLedger, WalletsApi } from '@cip/wallets/contract';
import { createHash } from 'node:crypto';
import type {
  NetworkAuthorizationRequest,
  NetworkReference,
  NetworkReversalRequest,
} from './network/iso-issuer-messages';
import { networkAnswerOf, RESPONSE } from './network/response-codes';
import { executeLedger, holdForDecision, releaseUnrecordedHold } from './wallet-ledger-execution';
import type { DecisioningParties, DistributorDecisioning } from './decisioning/distributor-decisioning';

export interface AuthorizationsPorts {
  eventStore(environment: Environment): EventStore;
  readStore(environment: Environment): ReadStore;
  /** Waits until the authorizations projection has caught up with the log (read-your-writes for lists). */
  settle(environment: Environment): Promise<void>;
  cards: CardNetworkApi;
  users: Pick<UserLifecycleApi, 'userStatus'>;
  wallets: Pick<WalletsApi, 'getWallet'>;
  ledger: WalletLedger;
  programs: ProgramDirectory;
  /** The 3-D Secure context's check of authentication values; null while it is not in the runtime. */
  threeDs?: ThreeDsVerificationApi | null;
  /**
   * Resolves once the ledger saga (AUTHORIZATION_LEDGER_GROUP) has carried out every event recorded before
   * the call: true, or false when this process does not run the saga (nothing to wait for here).
   */
  ledgerRecovery(environment: Environment): Promise<boolean>;
  logger?: Pick<Logger, 'error'>;
  /** The authorization settings of a distributor's program (pricing, tolerance, hold expiry). */
  authorizationProgram(environment: Environment, distributorId: string): AuthorizationProgram;
}

/** What the issuer answers the network: DE-039, and DE-038 when approved. */
export interface NetworkAnswer {
  responseCode: string;
  approvalCode?: string;
  /** The authorization the message was recorded on (absent when nothing was recorded). */
  authorizationId?: string;
  /** A partial approval (response code 10): the wallet minor units approved, for DE-004 / DE-006. */
  approvedAmount?: number;
}

const SPEND_PAGE = 100;

/** What an event does to the wallet (a force post's comes with the Cleared event after it). */
const ledgerOf = (event: AuthorizationEvent) => ('ledger' in event.data ? event.data.ledger : []);
/** A hold placed on the wallet before the decision was recorded (`holdForDecision`). */
type PlacedHold = { holdId: string; amount: number };
/**
 * Whether a ledger instruction is exactly the hold already placed: carrying it out again would change nothing
 * (the ledger is idempotent on the hold id) but would queue behind the wallet's other commands for a turn of
 * its durable commit, which on a hot wallet is most of an authorization's time.
 */
const isPlaced = (step: LedgerInstruction, placed: PlacedHold | undefined) =>
  placed !== undefined &&
  step.op === 'placeHold' &&
  !step.force &&
  step.holdId === placed.holdId &&
  step.amount === placed.amount;
/** A refund's decision to credit the wallet: carried out by `creditRefund`, whose outcome is recorded after. */
const isRefundCredit = (
  event: AuthorizationEvent,
): event is Extract<AuthorizationEvent, { type: 'AuthorizationDecided' }> =>
  event.type === 'AuthorizationDecided' && event.data.type === 'refund' && event.data.ledger.length > 0;
/** Whether a card's controls count its past payments (a limit over a window, not per authorization). */
const hasWindowLimit = (card: CardForAuthorization) =>
  card.spendingControls.limits.some((limit) => limit.interval !== 'per_authorization');

/** The answer already given to a message of the transaction (`networkKey`), from its recorded events; null: none. */
function answerRecorded(
  events: AuthorizationEvent[],
  authorizationId: string,
  networkKey: string,
): NetworkAnswer | null {
  // Nothing recorded, or only the abandonment of a hold no decision came for: the message is decided (a
  // request then declines, an advice of the network's stand-in is recorded).
  if (events.every((event) => event.type === 'AuthorizationAbandoned')) return null;
  const decided = events.find((event) => event.type === 'AuthorizationDecided');
  const seen = events.some((event) => 'networkKey' in event.data && event.data.networkKey === networkKey);
  if (!seen) {
    // Another 0100 of a decided transaction (another STAN) is not a retry: refused as a duplicate. An
    // 0120 for it (the network stood in after our 0110 came late) is acknowledged: our decision stands,
    // and the network would repeat an unanswered advice for ever.
    if (networkKey.startsWith('0100'))
      return { responseCode: RESPONSE.duplicateTransmission, authorizationId };
    if (networkKey.startsWith('0120')) return { responseCode: RESPONSE.approved, authorizationId };
    return null;
  }
  if (decided?.type === 'AuthorizationDecided' && decided.data.networkKey === networkKey) {
    // A refund whose credit the ledger refused was answered as refused.
    if (events.some((event) => event.type === 'AuthorizationCreditRefused')) {
      return { responseCode: RESPONSE.overLimit, authorizationId };
    }
    return networkAnswerOf(decided.data);
  }
  return { responseCode: RESPONSE.approved, authorizationId };
}

/** The context of a sweep's command (expiry, abandonment): its cause names the sweep and the authorization. */
const sweepContext = (
  environment: Environment,
  distributorId: string,
  cause: string,
  now: string,
): CommandContext => ({
  occurredAt: now,
  distributorId,
  environment,
  correlationId: cause,
  causationId: cause,
});

/** Concurrent messages on one authorization (a retry racing its original) retry on the fresh stream. */
const STREAM_ATTEMPTS = 10;
/** Events carried out inline and not yet passed by the ledger saga; bounded where no saga runs. */
const CARRIED_OUT_CAPACITY = 100_000;

/**
 * The authorization id of a network transaction: derived from the acquirer and the RRN, which the acquirer
 * keeps over the transaction's life (authorization, advice, reversal), so every message of it reaches the
 * same stream without a lookup, a retry is recognised by the stream itself, and the sandbox finds the
 * authorization of an RRN by computing its id. The acquirer's RRNs are assumed unique per acquirer within
 * the platform's retention (12 characters, usually date-based).
 */
export function authorizationIdOf(
  environment: Environment,
  reference: Pick<NetworkReference, 'acquirerId' | 'rrn'>,
): string {
  const hex = createHash('sha256')
    .update(`${environment}|${reference.acquirerId}|${reference.rrn}`)
    .digest('hex');
  // A uuid shape (version 8, custom: RFC 9562), so the id passes the API's `aut-<uuid>` checks.
  const variant = ((Number.parseInt(hex[16], 16) & 0x3) | 0x8).toString(16);
  return `${AUTHORIZATION_ID_PREFIX}-${hex.slice(0, 8)}-${hex.slice(8, 12)}-8${hex.slice(13, 16)}-${variant}${hex.slice(17, 20)}-${hex.slice(20, 32)}`;
}

/** The program a distributor's calls run under when the directory does not know it (an erased tenant). */
const NO_PROGRAM: ProgramRules = {
  allowedCountries: [],
  b2b: false,
  prepaid: false,
  kycImportEnabled: false,
};

/**
 * The authorizations context: decides the network's 0100s, records its 0120 advices and 0400/0420
 * reversals, expires lapsed holds, and serves the authorizations to distributors. Each message is one
 * command on the authorization's stream (`authorizationIdOf`); its events' ledger instructions are carried
 * out on the wallet by `executeLedger` after the append, and again on a retried message (idempotent).
 *
 * The double-spend guard is the wallet ledger: a payment's hold is placed (with the ledger's optimistic
 * concurrency on the wallet stream) before the decision is recorded and answered; a hold the ledger refuses
 * for funds is decided again as `insufficientFund` on the wallet's balance.
 */
export class AuthorizationsService implements AuthorizationsApi {
  /** One message of an authorization at a time in this process: append, then its ledger, then the next. */
  private readonly streams = new KeyedSerializer();
  /**
   * One payment at a time per card with a window limit (daily, monthly, ...), from reading its spend to
   * recording its decision: payments decided together would each count only what was recorded before them,
   * and pass the limit together (20 concurrent 10 USDC payments on a 30 USDC daily limit: 10 approved, as
   * many as the wallet covered). The issuer is a singleton (helm `singleton`), so this process's order is
   * the platform's. Cards without such a limit, and refunds, are not serialized.
   */
  private readonly windowedCards = new KeyedSerializer();
  /** `streamId@revision` of events whose ledger instructions ran inline (the saga skips them). */
  private readonly carriedOut = new Set<string>();
  /** Per environment, once the ledger saga has caught up with what earlier processes recorded. */
  private readonly recovered = new Map<Environment, Promise<void>>();
  /** Authorizations whose recorded ledger instructions failed inline: the saga owes them before the next message. */
  private readonly owed = new Set<string>();

  constructor(
    private readonly ports: AuthorizationsPorts,
    private readonly clock: Clock,
    /** Real-time decisioning by the distributor (decisioning/); the platform decides alone without it. */
    private readonly decisioning?: Pick<DistributorDecisioning, 'decide'>,
  ) {}

  // -------------------------------------------------------------------------------------------------
  // Distributors
  // -------------------------------------------------------------------------------------------------

  async getAuthorization(caller: Caller, authorizationId: string): Promise<AuthorizationView> {
    const view = await this.view(caller.environment, authorizationId);
    return renderAuthorization(ownedBy(caller, view, 'Authorization', authorizationId)) as AuthorizationView;
  }

  async listAuthorizations(
    caller: Caller,
    filter: AuthorizationListFilter,
    page: FindPage,
  ): Promise<FindResult<AuthorizationView>> {
    if (filter?.status !== undefined && !AUTHORIZATION_STATUSES.includes(filter.status)) {
      throw new DomainError(
        'validation_error',
        `status must be one of ${AUTHORIZATION_STATUSES.join(', ')}`,
        [{ field: 'status', message: `must be one of ${AUTHORIZATION_STATUSES.join(', ')}` }],
      );
    }
    await this.ports.settle(caller.environment);
    const result = await forTenant(this.ports.readStore, caller).find<AuthorizationView>(
      authorizationsProjection.collection,
      { cardId: filter?.cardId, userId: filter?.userId, status: filter?.status },
      page,
    );
    return { ...result, items: result.items.map((item) => renderAuthorization(item) as AuthorizationView) };
  }

  async findByNetworkReference(
    caller: Caller,
    ref: { acquirerId: string; rrn: string },
  ): Promise<AuthorizationView | null> {
    if (typeof ref?.acquirerId !== 'string' || typeof ref?.rrn !== 'string') {
      throw new DomainError('validation_error', 'acquirerId and rrn are required');
    }
    const view = await this.view(caller.environment, authorizationIdOf(caller.environment, ref));
    if (!view || view.distributorId !== caller.distributorId) return null;
    return renderAuthorization(view) as AuthorizationView;
  }

  // -------------------------------------------------------------------------------------------------
  // The network (ISO 8583 0100, 0120, 0400, 0420)
  // -------------------------------------------------------------------------------------------------

  /** An 0100 (or an 0120 advice): decided, recorded, its hold placed; the answer for the 0110 / 0130. */
  async authorize(environment: Environment, request: NetworkAuthorizationRequest): Promise<NetworkAnswer> {
    const authorizationId = authorizationIdOf(environment, request.reference);
    const history = await this.events(environment, authorizationId);
    const recorded = answerRecorded(history, authorizationId, request.networkKey);
    if (recorded) return recorded;
    // Nothing recorded yet (a first message): its command appends without reading the stream again (a
    // message of the same transaction recorded meanwhile makes that append conflict, and it runs again on it).
    const expectNew = history.length === 0;
    if (request.advice && request.networkDecision !== RESPONSE.approved) {
      // The network declined on the issuer's behalf: nothing was spent, nothing to hold. Acknowledged.
      return { responseCode: RESPONSE.approved };
    }

    const card = await this.ports.cards.cardForAuthorization(environment, {
      pan: request.pan,
      expiry: request.expiry,
    });
    if (!card) return { responseCode: RESPONSE.invalidCard };
    const now = this.clock.now().toISOString();
    const program = await this.programOf(environment, card.distributorId);
    const parties = {
      authorizationId,
      distributorId: card.distributorId,
      cardId: card.cardId,
      userId: card.userId,
      walletId: card.walletId,
    };
    const context = this.context(environment, card.distributorId, request.networkKey);

    if (request.kind === 'refund') {
      const originalAuthorizationId = await this.refundedPayment(environment, card, request);
      const declined =
        originalAuthorizationId &&
        (await this.reserveRefund(
          environment,
          originalAuthorizationId,
          authorizationId,
          request,
          program,
          context,
        ));
      return this.run(
        environment,
        authorizationId,
        context,
        {
          type: 'RefundAuthorization',
          data: {
            ...parties,
            networkKey: request.networkKey,
            charge: request.charge,
            pricing: program,
            now,
            ...(originalAuthorizationId ? { originalAuthorizationId } : {}),
            ...(declined ? { declined } : {}),
          },
        },
        { expectNew },
      );
    }

    const decide = () =>
      this.decidePayment(environment, request, card, program, context, parties, now, expectNew);
    return hasWindowLimit(card) ? this.windowedCards.run(card.cardId, decide) : decide();
  }

  /** A payment (or an advice) on a card found: the facts, the decision, its hold, recorded. */
  private async decidePayment(
    environment: Environment,
    request: NetworkAuthorizationRequest,
    card: CardForAuthorization,
    program: AuthorizationProgram,
    context: CommandContext,
    parties: DecisioningParties,
    now: string,
    expectNew: boolean,
  ): Promise<NetworkAnswer> {
    const { authorizationId } = parties;
    const userStatus = await this.userStatus(environment, card);
    const verification = request.advice
      ? null
      : await this.verification(environment, card, authorizationId, request);
    const facts: AuthorizationFacts = {
      request: { ...request.charge, at: now, ...(request.advice ? { advice: request.advice } : {}) },
      card: { status: card.status, blocks: card.blocks, expMonth: card.expMonth, expYear: card.expYear },
      userStatus,
      verification,
      // A payment declined for its CVV2 or PIN does not spend its authentication value.
      ...(verification?.ok === false
        ? {}
        : await this.threeDsCheck(environment, card, authorizationId, request)),
      controls: await this.controls(environment, card, request, program, now),
      // The ledger decides the funds (below); every other check runs first.
      availableBalance: Number.MAX_SAFE_INTEGER,
      program,
    };
    // The distributor's real-time decision joins the facts when the platform's checks pass (decisioning/).
    const outcome = this.decisioning
      ? await this.decisioning.decide(environment, parties, facts)
      : decideAuthorization(facts);
    let placed: PlacedHold | undefined;
    if (outcome.decision === 'confirmed' && outcome.hold && !outcome.hold.force) {
      const hold = { holdId: authorizationId, amount: outcome.hold.amount, cardId: card.cardId };
      const held = await holdForDecision(
        this.ports.ledger,
        this.ledgerContext(environment, context),
        card.walletId,
        hold,
      );
      if (held === 'insufficient_funds') {
        facts.availableBalance = await this.availableBalance(environment, card, outcome.hold.amount);
      } else placed = hold;
    }
    // Recorded after the hold: its time too, so the user's Events list in the log's order (webhooks send so).
    const recordedAt = { ...context, occurredAt: this.clock.now().toISOString() };
    return this.run(
      environment,
      authorizationId,
      recordedAt,
      { type: 'DecideAuthorization', data: { ...parties, networkKey: request.networkKey, facts } },
      { placed, expectNew },
    );
  }

  /**
   * The payment a refund names (DE-048.63, its RRN at the same acquirer), when the issuer has it as a payment
   * on the same wallet (a reissued card's refunds find the old card's payments); otherwise the refund is credited without one (a credit is never declined for its
   * reference, and an acquirer's wrong reference must not link another cardholder's payment).
   */
  private async refundedPayment(
    environment: Environment,
    card: CardForAuthorization,
    request: NetworkAuthorizationRequest,
  ): Promise<string | undefined> {
    if (!request.originalRrn) return undefined;
    const originalId = authorizationIdOf(environment, {
      acquirerId: request.reference.acquirerId,
      rrn: request.originalRrn,
    });
    const { state } = await loadState(this.ports.eventStore(environment), authorizationDecider, originalId);
    return isAuthorization(state) && state.walletId === card.walletId && state.type === 'payment'
      ? originalId
      : undefined;
  }

  /**
   * Counts a refund against the payment it names, on the payment's stream with its expected revision (so
   * concurrent refunds of one payment, in any process, never give back more than it cleared): undefined when
   * counted (or counted before: a retry), the reason to decline it otherwise.
   */
  private async reserveRefund(
    environment: Environment,
    paymentId: string,
    refundAuthorizationId: string,
    request: NetworkAuthorizationRequest,
    program: AuthorizationProgram,
    context: CommandContext,
  ): Promise<string | undefined> {
    const priced = priceAuthorization(request.charge, program, { authFee: false, noFees: true });
    if (!priced.ok) return undefined; // refused by the refund's own pricing, with its reason
    try {
      await this.streams.run(paymentId, () =>
        handleCommand(
          this.ports.eventStore(environment),
          authorizationDecider,
          paymentId,
          {
            type: 'ReserveRefund',
            data: { refundAuthorizationId, amount: priced.amount, now: context.occurredAt },
          },
          context,
          { maxAttempts: STREAM_ATTEMPTS },
        ),
      );
      return undefined;
    } catch (error) {
      if (error instanceof DomainError && error.code === 'invalid_state_transition') return error.message;
      throw error;
    }
  }

  /**
   * A refund's credit, after its decision is recorded: the wallet ledger credits it (once per refund id) or
   * refuses it (a balance beyond the platform's bound), and the outcome is recorded: cleared, or rejected (the
   * payment it named gets its refundable amount back). Run inline after the append, or by the ledger saga
   * after a crash. Whether it was credited.
   */
  private async creditRefund(
    environment: Environment,
    authorizationId: string,
    decided: Extract<AuthorizationEvent, { type: 'AuthorizationDecided' }>,
    ledgerContext: LedgerContext,
    context: CommandContext,
  ): Promise<boolean> {
    let outcome: { credited: true } | { credited: false; reason: string } = { credited: true };
    try {
      await executeLedger(
        this.ports.ledger,
        ledgerContext,
        decided.data.walletId,
        decided.data.ledger,
        authorizationId,
        decided.data.cardId,
      );
    } catch (error) {
      if (!(error instanceof DomainError) || error.fate !== undefined) throw error;
      outcome = { credited: false, reason: `${error.code}: ${error.message}` };
    }
    const now = this.clock.now().toISOString();
    const store = this.ports.eventStore(environment);
    await handleCommand(
      store,
      authorizationDecider,
      authorizationId,
      { type: 'RecordRefundCredit', data: { ...outcome, now } },
      context,
      {
        maxAttempts: STREAM_ATTEMPTS,
      },
    );
    const paymentId = decided.data.originalAuthorizationId;
    if (!outcome.credited && paymentId) {
      await this.streams.run(paymentId, () =>
        handleCommand(
          store,
          authorizationDecider,
          paymentId,
          { type: 'ReleaseRefund', data: { refundAuthorizationId: authorizationId, now } },
          context,
          {
            maxAttempts: STREAM_ATTEMPTS,
          },
        ),
      );
    }
    if (!outcome.credited) {
      this.ports.logger?.error(
        { authorizationId, reason: outcome.reason },
        'refund credit refused by the wallet ledger: the refund is rejected',
      );
    }
    return outcome.credited;
  }

  /** An 0400 or 0420: the hold released (all, or down to DE-095's new total); the answer for 0410 / 0430. */
  async reverse(environment: Environment, request: NetworkReversalRequest): Promise<NetworkAnswer> {
    const authorizationId = authorizationIdOf(environment, request.reference);
    const { state } = await loadState(
      this.ports.eventStore(environment),
      authorizationDecider,
      authorizationId,
    );
    // An advice (0420) reports a reversal already effective at the acquirer: always acknowledged (the network
    // repeats it until it is), even when there is nothing left to release. A request (0400) is told when
    // nothing was reversed.
    const advice = request.mti === '0420';
    if (!isAuthorization(state)) {
      // Nothing recorded for it (the issuer died between placing the hold and recording the decision, or
      // never saw the 0100): release a hold placed under its id, if any, and acknowledge; no hold: unknown.
      const released = await this.releaseOrphanHold(environment, authorizationId, request);
      return { responseCode: released || advice ? RESPONSE.approved : RESPONSE.unableToLocate };
    }
    if (state.status === 'rejected' || state.remaining === 0) {
      // Nothing held any more (declined, reversed, cleared, expired, a refund): nothing changes. A retry of
      // the reversal that released it gets the answer it got.
      const applied = advice || state.networkKeys.includes(request.networkKey);
      return { responseCode: applied ? RESPONSE.approved : RESPONSE.invalidTransaction, authorizationId };
    }
    const distributorId = await this.distributorOf(environment, authorizationId);
    const context = this.context(environment, distributorId, request.networkKey);
    const amount = await this.reversalAmount(environment, state, request, distributorId);
    if (amount === 0) return { responseCode: RESPONSE.approved, authorizationId };
    const now = this.clock.now().toISOString();
    return this.run(environment, authorizationId, context, {
      type: 'ReverseAuthorization',
      data: { networkKey: request.networkKey, ...(amount === undefined ? {} : { amount }), now },
    });
  }

  /**
   * One line of a clearing file: a presentment clears its authorization (found by acquirer id + RRN) by the
   * line's amount priced into wallet units; a force post records and debits a payment on the card's wallet.
   * `networkKey` (file id + line sequence) makes a line imported again change nothing. A line that cannot
   * apply (unknown authorization or card, beyond the tolerance, refused) throws a DomainError saying why.
   */
  async clearPresentment(
    environment: Environment,
    networkKey: string,
    line: ClearingPresentment,
    /** Only check that the line would apply now (the sandbox, before it cuts a file): nothing is recorded. */
    options: { dryRun?: boolean } = {},
  ): Promise<{ authorizationId: string }> {
    const authorizationId = authorizationIdOf(environment, line);
    const { state } = await loadState(
      this.ports.eventStore(environment),
      authorizationDecider,
      authorizationId,
    );
    const now = this.clock.now().toISOString();
    const charge = {
      merchant: {
        name: line.merchantName.trim(),
        city: line.merchantCity.trim(),
        country: line.merchantCountry.trim(),
        mcc: line.mcc,
        ...(line.merchantId.trim() ? { mid: line.merchantId.trim() } : {}),
      },
      merchantAmount: line.amountMinor,
      merchantCurrency: line.currency,
    };
    let command: AuthorizationCommand;
    let distributorId: string;
    if (line.kind === 'force_post') {
      const card = await this.ports.cards.cardForClearing(environment, line.cardId);
      if (!card) throw notFound('Card', line.cardId);
      distributorId = card.distributorId;
      const { cardId, userId, walletId } = card;
      command = {
        type: 'ForcePostClearing',
        data: {
          ...{ authorizationId, distributorId, cardId, userId, walletId },
          networkKey,
          charge,
          pricing: await this.programOf(environment, distributorId),
          now,
        },
      };
    } else {
      if (!isAuthorization(state)) throw notFound('Authorization', authorizationId);
      distributorId = await this.distributorOf(environment, authorizationId);
      const program = await this.programOf(environment, distributorId);
      const priced = priceAuthorization(charge, program, { authFee: false, noFees: true });
      if (!priced.ok) {
        throw new DomainError('validation_error', `Clearing of ${authorizationId} cannot be priced`);
      }
      command = {
        type: 'ClearAuthorization',
        data: { networkKey, amount: priced.amount, final: false, now },
      };
    }
    // A dry run on the state just read, for the refusal's reason (`run` answers any refusal as a duplicate).
    authorizationDecider.decide(command, state);
    if (options.dryRun) return { authorizationId };
    const answer = await this.run(
      environment,
      authorizationId,
      this.context(environment, distributorId, networkKey),
      command,
    );
    if (answer.responseCode !== RESPONSE.approved) {
      throw new DomainError(
        'invalid_state_transition',
        `Authorization ${authorizationId} refused the clearing`,
      );
    }
    return { authorizationId };
  }

  /** The expiry sweep's: releases what an authorization still holds once its window has passed. */
  async expireIfDue(environment: Environment, authorizationId: string): Promise<boolean> {
    const { state } = await loadState(
      this.ports.eventStore(environment),
      authorizationDecider,
      authorizationId,
    );
    const now = this.clock.now().toISOString();
    if (!isAuthorization(state) || state.remaining === 0 || !state.expiresAt || state.expiresAt > now) {
      return false;
    }
    const distributorId = await this.distributorOf(environment, authorizationId);
    const context = sweepContext(environment, distributorId, `expiry:${authorizationId}`, now);
    const answer = await this.run(environment, authorizationId, context, {
      type: 'ExpireAuthorization',
      data: { now },
    });
    return answer.responseCode === RESPONSE.approved;
  }

  /**
   * The unrecorded-hold sweep's (`UnrecordedHoldSweep`): a hold placed for `authorizationId` whose decision was
   * not recorded within the network's timeout. Records the abandonment on the authorization's stream, on the
   * condition that the stream does not exist (a decision recorded meanwhile wins, and nothing changes; one
   * arriving later conflicts with it and is declined), then releases the hold (the event's ledger
   * instruction, carried out like every other: inline, or by the ledger saga after a crash). Whether it
   * abandoned the authorization now.
   */
  async abandonUnrecordedHold(
    environment: Environment,
    hold: {
      authorizationId: string;
      walletId: string;
      holdId: string;
      placedAt: string;
      distributorId: string;
    },
  ): Promise<boolean> {
    const { authorizationId, walletId, holdId, placedAt, distributorId } = hold;
    const [first] = await this.ports.eventStore(environment).readStream(authorizationId, { maxCount: 1 });
    if (first) return false;
    const now = this.clock.now().toISOString();
    const context = sweepContext(environment, distributorId, `abandon:${authorizationId}`, now);
    await this.run(
      environment,
      authorizationId,
      context,
      { type: 'AbandonAuthorization', data: { authorizationId, walletId, holdId, placedAt, now } },
      { expectNew: true },
    );
    const [opening] = await this.events(environment, authorizationId);
    const abandoned = opening?.type === 'AuthorizationAbandoned' && opening.data.at === now;
    if (abandoned) {
      this.ports.logger?.error(
        { authorizationId, walletId, placedAt },
        'hold placed without a recorded decision released after the network timeout (authorization abandoned)',
      );
    }
    return abandoned;
  }

  // -------------------------------------------------------------------------------------------------
  // Helpers
  // -------------------------------------------------------------------------------------------------

  /**
   * Appends the command's events, then carries out their ledger instructions, one message of the
   * authorization at a time in this process (a later message's ledger never overtakes an earlier one's).
   * A message seen before appends nothing and gets the recorded answer. What a crash left recorded but not
   * carried out, the ledger saga carries out from the log, in order; after a start, messages wait for it
   * to have caught up (`ledgerRecovered`) so they never overtake what it still owes.
   */
  private async run(
    environment: Environment,
    authorizationId: string,
    context: CommandContext,
    command: AuthorizationCommand,
    options: {
      /** The hold this message placed just before (`authorize`): its instruction need not go to the ledger again. */
      placed?: PlacedHold;
      /** The stream was read empty just before (`authorize`): append without reading it again. */
      expectNew?: boolean;
    } = {},
  ): Promise<NetworkAnswer> {
    await this.ledgerRecovered(environment);
    if (this.owed.has(authorizationId) && (await this.ports.ledgerRecovery(environment))) {
      this.owed.delete(authorizationId);
    }
    return this.streams.run(authorizationId, () =>
      this.runInTurn(environment, authorizationId, context, command, options),
    );
  }

  private async runInTurn(
    environment: Environment,
    authorizationId: string,
    context: CommandContext,
    command: AuthorizationCommand,
    { placed, expectNew }: { placed?: PlacedHold; expectNew?: boolean },
  ): Promise<NetworkAnswer> {
    const networkKey = 'networkKey' in command.data ? command.data.networkKey : null;
    let events: AuthorizationEvent[];
    let revision: number;
    try {
      ({ events, revision } = await handleCommand(
        this.ports.eventStore(environment),
        authorizationDecider,
        authorizationId,
        command,
        context,
        { maxAttempts: STREAM_ATTEMPTS, expectNew },
      ));
    } catch (error) {
      if (error instanceof DomainError && error.code === 'invalid_state_transition' && networkKey) {
        return { responseCode: RESPONSE.duplicateTransmission, authorizationId };
      }
      throw error;
    }
    if (events.length === 0) {
      return (
        (networkKey &&
          answerRecorded(await this.events(environment, authorizationId), authorizationId, networkKey)) || {
          responseCode: RESPONSE.approved,
          authorizationId,
        }
      );
    }
    const { walletId, cardId } = await this.partiesOf(environment, authorizationId, events);
    const ledgerContext = this.ledgerContext(environment, context);
    const first = revision - events.length + 1;
    for (const [index, event] of events.entries()) {
      if (isRefundCredit(event)) {
        const credited = await this.creditRefund(environment, authorizationId, event, ledgerContext, context);
        this.markCarriedOut(`${authorizationId}@${first + index}`);
        if (!credited) return { responseCode: RESPONSE.overLimit, authorizationId };
        continue;
      }
      const instructions = ledgerOf(event).filter((step) => !isPlaced(step, placed));
      try {
        await executeLedger(
          this.ports.ledger,
          ledgerContext,
          walletId,
          instructions,
          authorizationId,
          cardId,
        );
      } catch (error) {
        // Recorded, not carried out: the saga carries it out; the authorization's next message waits for it.
        this.owed.add(authorizationId);
        throw error;
      }
      this.markCarriedOut(`${authorizationId}@${first + index}`);
    }
    const decided = events.find((event) => event.type === 'AuthorizationDecided');
    if (decided?.type === 'AuthorizationDecided') {
      return networkAnswerOf(decided.data);
    }
    return { responseCode: RESPONSE.approved, authorizationId };
  }

  /**
   * The ledger saga's step (AUTHORIZATION_LEDGER_GROUP, in log order): carries out a recorded event's ledger
   * instructions unless this process did so inline. What it carries out is what a crash left between an
   * append and its ledger calls, always recent, so the ledger's idempotency ids still recognise any call
   * that did go through. A refusal by the ledger is logged for operators and skipped (never blocks the log).
   */
  async carryOutRecorded(environment: Environment, recorded: RecordedEvent): Promise<void> {
    const authorizationId = recorded.streamId;
    await this.streams.run(authorizationId, async () => {
      if (this.carriedOut.delete(`${authorizationId}@${recorded.revision}`)) return;
      const event = authorizationEvents.read(recorded);
      if (isRefundCredit(event)) {
        const distributorId = recorded.metadata.distributorId as string;
        const context = {
          environment,
          distributorId,
          correlationId: authorizationId,
          causationId: authorizationId,
        };
        await this.creditRefund(environment, authorizationId, event, context, {
          ...context,
          occurredAt: this.clock.now().toISOString(),
        });
        return;
      }
      const instructions = ledgerOf(event);
      if (instructions.length === 0) return;
      const { walletId, cardId } = await this.partiesOf(environment, authorizationId, [event]);
      const distributorId = recorded.metadata.distributorId as string;
      const context = {
        environment,
        distributorId,
        correlationId: authorizationId,
        causationId: authorizationId,
      };
      try {
        await executeLedger(this.ports.ledger, context, walletId, instructions, authorizationId, cardId);
      } catch (error) {
        if (!(error instanceof DomainError)) throw error;
        this.ports.logger?.error(
          {
            authorizationId,
            revision: recorded.revision,
            type: recorded.type,
            code: error.code,
            reason: error.message,
          },
          'authorization ledger instructions refused by the wallet ledger: needs an operator',
        );
      }
    });
  }

  private markCarriedOut(key: string): void {
    this.carriedOut.add(key);
    if (this.carriedOut.size > CARRIED_OUT_CAPACITY) {
      // No saga passes here (another process runs it): forget the oldest (the saga would only find them done).
      this.carriedOut.delete(this.carriedOut.values().next().value as string);
    }
  }

  private ledgerRecovered(environment: Environment): Promise<void> {
    let recovery = this.recovered.get(environment);
    if (!recovery) {
      recovery = this.ports.ledgerRecovery(environment).then(
        (caughtUp) => {
          // Not running here (yet): ask again next time rather than remember a wait that never happened.
          if (!caughtUp) this.recovered.delete(environment);
        },
        (error: unknown) => {
          this.recovered.delete(environment);
          throw error;
        },
      );
      this.recovered.set(environment, recovery);
    }
    return recovery;
  }

  private async events(environment: Environment, authorizationId: string): Promise<AuthorizationEvent[]> {
    const recorded = await this.ports.eventStore(environment).readStream(authorizationId);
    return recorded.map((event) => authorizationEvents.read(event));
  }

  /** The wallet an authorization's ledger instructions go to, and the card it was made with. */
  private async partiesOf(
    environment: Environment,
    authorizationId: string,
    events: AuthorizationEvent[],
  ): Promise<{ walletId: string; cardId?: string }> {
    const opening = events.find(
      (event) =>
        event.type === 'AuthorizationDecided' ||
        event.type === 'AuthorizationForcePosted' ||
        event.type === 'AuthorizationAbandoned',
    );
    if (opening?.type === 'AuthorizationAbandoned') return { walletId: opening.data.walletId };
    if (opening) return { walletId: opening.data.walletId, cardId: opening.data.cardId };
    const { state } = await loadState(
      this.ports.eventStore(environment),
      authorizationDecider,
      authorizationId,
    );
    if (!isAuthorization(state)) throw notFound('Authorization', authorizationId);
    return { walletId: state.walletId, cardId: state.cardId };
  }

  private async distributorOf(environment: Environment, authorizationId: string): Promise<string> {
    const [first] = await this.ports.eventStore(environment).readStream(authorizationId, { maxCount: 1 });
    const distributorId = first?.metadata.distributorId;
    if (!distributorId) throw notFound('Authorization', authorizationId);
    return distributorId;
  }

  private context(environment: Environment, distributorId: string, networkKey: string): CommandContext {
    return {
      occurredAt: this.clock.now().toISOString(),
      distributorId,
      environment,
      correlationId: networkKey,
      causationId: networkKey,
    };
  }

  private ledgerContext(environment: Environment, context: CommandContext): LedgerContext {
    return {
      environment,
      distributorId: context.distributorId as string,
      correlationId: context.correlationId,
      causationId: context.causationId,
    };
  }

  /**
   * The distributor's authorization program as it is now: the directory first reads what another process
   * changed (the CLI, the operator API), so a change applies to the very next authorization, reversal or
   * clearing line wherever the issuer runs (its own process in the split topology).
   */
  private async programOf(environment: Environment, distributorId: string): Promise<AuthorizationProgram> {
    await this.ports.programs.catchUp?.();
    return this.ports.authorizationProgram(environment, distributorId);
  }

  /** A distributor's caller for the calls the network makes on its behalf (users, wallets). */
  private callerFor(environment: Environment, distributorId: string): Caller {
    return {
      distributorId,
      environment,
      requestId: `network:${this.clock.now().toISOString()}`,
      program: this.ports.programs.programOf(distributorId) ?? NO_PROGRAM,
    };
  }

  /** The cardholder's status alone (the users context reads it without opening personal data). */
  private async userStatus(environment: Environment, card: CardForAuthorization) {
    const status = await this.ports.users.userStatus(
      this.callerFor(environment, card.distributorId),
      card.userId,
    );
    return status ?? 'deleted';
  }

  /** The CVV2 or PIN check of the request, counted by the cards context (three failures block the card). */
  private async verification(
    environment: Environment,
    card: CardForAuthorization,
    authorizationId: string,
    request: NetworkAuthorizationRequest,
  ): Promise<AuthorizationFacts['verification']> {
    // An inactive or blocked card is declined before its secrets matter, and records nothing.
    if (card.status !== 'active' || card.blocks.length > 0) return null;
    if (request.pin !== undefined) {
      const { ok } = await this.ports.cards.verifyPin(environment, card.cardId, {
        authorizationId,
        value: request.pin,
      });
      return { method: 'pin', ok };
    }
    if (request.cvv2 !== undefined) {
      const { ok } = await this.ports.cards.verifyCvv2(environment, card.cardId, {
        authorizationId,
        value: request.cvv2,
      });
      return { method: 'cvv2', ok };
    }
    return null;
  }

  /**
   * The 3-D Secure authentication value an e-commerce 0100 carried, checked (and spent when it verifies) by
   * the three-ds context against this payment's card, amount, currency and merchant. Not asked for an
   * inactive or blocked card (declined first, the value stays unspent) nor without the context.
   */
  private async threeDsCheck(
    environment: Environment,
    card: CardForAuthorization,
    authorizationId: string,
    request: NetworkAuthorizationRequest,
  ): Promise<{ threeDs?: ThreeDsOutcome }> {
    const presented = request.threeDs;
    if (!presented || request.advice || !this.ports.threeDs) return {};
    if (card.status !== 'active' || card.blocks.length > 0) return {};
    const { merchantAmount, merchantCurrency, merchant } = request.charge;
    if (!isCurrencyCode(merchantCurrency)) {
      return { threeDs: { eci: presented.eci, verified: false, reason: 'mismatch' } };
    }
    const verdict = await this.ports.threeDs.verifyAuthenticationValue(environment, {
      cardId: card.cardId,
      authorizationId,
      amount: merchantAmountText(merchantAmount, merchantCurrency),
      currency: merchantCurrency,
      merchantName: merchant.name,
      value: presented.authenticationValue,
      eci: presented.eci,
    });
    return {
      threeDs: verdict.verified
        ? { eci: verdict.eci, verified: true }
        : { eci: presented.eci, verified: false, reason: verdict.reason },
    };
  }

  /** The card's controls on the priced amount, with its approved payments from the read model. */
  private async controls(
    environment: Environment,
    card: CardForAuthorization,
    request: NetworkAuthorizationRequest,
    program: AuthorizationProgram,
    now: string,
  ): Promise<ControlsOutcome> {
    const priced = priceAuthorization(request.charge, program, { authFee: true });
    if (!priced.ok) return { ok: true }; // declined as unpriceable by the policy, before the controls
    // Only window limits read the history; the read model is settled first so that the payment decided
    // just before (this card's payments are decided one at a time: `windowedCards`) counts.
    const windowed = hasWindowLimit(card);
    if (windowed) await this.ports.settle(environment);
    const decision = evaluateControls(
      card.spendingControls,
      windowed ? await this.spendHistory(environment, card.cardId) : [],
      {
        amount: priced.amount,
        merchantMcc: request.charge.merchant.mcc,
        at: now,
      },
    );
    return decision.ok ? { ok: true } : { ok: false, control: decision.control, detail: decision.detail };
  }

  /**
   * The card's approved payments, net of reversals (the read model; a payment decided a moment ago may not
   * be in it yet, which the ledger's hold makes harmless for funds but not for limits). Read through the
   * read model's `cardId` index: the card's own payments, whatever the platform's volume (without it, every
   * authorization of a card with a window limit read every authorization of every card).
   */
  private async spendHistory(environment: Environment, cardId: string): Promise<SpendRecord[]> {
    const history: SpendRecord[] = [];
    for (let page = 0; ; page++) {
      const { items, hasMore } = await this.ports
        .readStore(environment)
        .find<AuthorizationView>(authorizationsProjection.collection, {
          filter: { cardId, type: 'payment' },
          sort: { field: 'createdAt', direction: 'asc' },
          page,
          limit: SPEND_PAGE,
        });
      for (const item of items) {
        if (item.decision !== 'confirmed' || !item.decidedAt) continue;
        const net = Math.round((item.amount - item.reversedAmount) * 1_000_000);
        if (net > 0) history.push({ amount: net, at: item.decidedAt });
      }
      if (!hasMore) return history;
    }
  }

  /** The wallet's available balance when the ledger refused a hold for funds (below the hold, by the ledger's word). */
  private async availableBalance(
    environment: Environment,
    card: CardForAuthorization,
    hold: number,
  ): Promise<number> {
    const wallet = await this.ports.wallets.getWallet(
      this.callerFor(environment, card.distributorId),
      card.walletId,
    );
    return Math.min(Math.round(wallet.availableBalance * 1_000_000), hold - 1);
  }

  /** The minor units a reversal releases: all that is held (undefined), or down to DE-095's new total. */
  private async reversalAmount(
    environment: Environment,
    state: AuthorizationRecord,
    request: NetworkReversalRequest,
    distributorId: string,
  ): Promise<number | undefined> {
    if (request.replacementAmount === undefined || request.currency === null) return undefined;
    const program = await this.programOf(environment, distributorId);
    const priced = priceAuthorization(
      {
        merchant: request.merchant,
        merchantAmount: request.replacementAmount,
        merchantCurrency: request.currency,
      },
      program,
      { authFee: false, noFees: true },
    );
    if (!priced.ok) return undefined;
    // DE-095 is the transaction's new total: what was authorized and not reversed beyond it is released,
    // at most what is still held (what cleared already counts towards the new total).
    return Math.min(state.remaining, Math.max(0, state.amount - state.reversed - priced.amount));
  }

  /** Whether a hold was (or had been) released under the authorization's id on the card's wallet. */
  private async releaseOrphanHold(
    environment: Environment,
    authorizationId: string,
    request: NetworkReversalRequest,
  ): Promise<boolean> {
    if (!request.pan || !request.expiry) return false;
    const card = await this.ports.cards.cardForAuthorization(environment, {
      pan: request.pan,
      expiry: request.expiry,
    });
    if (!card) return false;
    return releaseUnrecordedHold(
      this.ports.ledger,
      {
        environment,
        distributorId: card.distributorId,
        correlationId: request.networkKey,
        causationId: request.networkKey,
      },
      card.walletId,
      authorizationId,
    );
  }

  /**
   * The authorization as its read model shows it, folded from its stream with the projection's own evolve:
   * the same document, without waiting for the projection to catch up (the simulator reads it right after
   * each exchange, under load).
   */
  private async view(environment: Environment, authorizationId: string): Promise<AuthorizationView | null> {
    const recorded = await this.ports.eventStore(environment).readStream(authorizationId);
    return recorded.reduce<AuthorizationView | null>(
      (doc, event) => authorizationsProjection.evolve(doc, event),
      null,
    );
  }
}
