import type { CardNetworkApi } from '@cip/cards/contract';
import type { ProgramDirectory } from '@cip/distributors/contract';
import { Caller, DomainError, Environment, iso4217Alpha, ownedBy } from '@cip/shared/contracts';
import { callerContext, CommandContext, EventStore, handleCommand, loadState } from '@cip/shared/eventing';
import type { ReadStore } from '@cip/shared/read-store';
import type { Clock, Logger } from '@cip/shared/runtime';
import {
  DEFAULT_THREE_DS_DEADLINE_SECONDS,
  EMV_3DS_VERSION,
  erro,
  fromBase64UrlJson,
  readEmvMessage,
  toBase64UrlJson,
  TRANS_STATUS_REASONS,
  type AcsApi,
  type AReq,
  type ARes,
  type CardAuthenticationView,
  CHALLENGE_PAGE_PATH,
  type ChallengeScreen,
  type CRes,
  type Erro,
  type RReq,
  type ThreeDsApi,
  type AuthenticationValueCheck,
  type AuthenticationValueVerdict,
  type ThreeDsVerificationApi,
  ECI,
} from '@cip/three-ds/contract';
import {
  acsOutcome,
  cardAuthenticationDecider,
  decimalAmount,
  isCardAuthentication,
  maskedPanOf,
  type CardAuthenticationCommand,
  type CardAuthenticationRecord,
  withinFrictionlessLimit,
  authenticationValueDecider,
  authenticationValueMatches,
  authenticationValueOf,
  authenticationValueRefusal,
  authenticationValueStreamOf,
  type AuthenticatedTransaction,
} from '@cip/three-ds/domain';
import { cardAuthenticationsProjection, toCardAuthenticationView } from '@cip/three-ds/read-models';
import type { WalletsApi } from '@cip/wallets/contract';
import { randomUUID } from 'node:crypto';
import { DirectoryServerRefused } from './directory-server-client';

export interface ThreeDsPorts {
  eventStore(environment: Environment): EventStore;
  readStore(environment: Environment): ReadStore;
  /** Waits (bounded, never failing) until the card authentications projection has read every event so far. */
  settle(environment: Environment): Promise<void>;
  cards: Pick<CardNetworkApi, 'cardForAuthorization'>;
  wallets: Pick<WalletsApi, 'getWallet'>;
  programs: ProgramDirectory;
  /**
   * Sends an RReq to the directory server and returns its answer (an RRes, or anything it sent); throws
   * `DirectoryServerRefused` when the URL can never be reached (no retry helps).
   */
  sendResult(environment: Environment, dsURL: string, rreq: RReq): Promise<unknown>;
  logger: Logger;
  /**
   * The environment's authentication value key (DATA_DIR/secrets/three-ds-authentication-value-key-<env>):
   * the MAC key of the CAVVs the ACS issues and the issuer verifies.
   */
  authenticationValueKey(environment: Environment): Buffer;
}

/** The ACS's identity in its messages (A.4 `acsReferenceNumber`, `acsOperatorID`). */
export const ACS_REFERENCE_NUMBER = 'CIP-ACS-SANDBOX-01';
export const ACS_OPERATOR_ID = 'CIP-ACS-OPERATOR';
/** `authenticationType` 04: decoupled (the distributor's app asks the cardholder out of band). */
const DECOUPLED = '04';
/** `authenticationType` 03: out of band, from the browser challenge page (the cardholder approves in the app). */
const OUT_OF_BAND = '03';

/** Stands in for the value of an answer the decider is about to refuse (a challenge no longer pending). */
const NO_AUTHENTICATION_VALUE = 'A'.repeat(27) + '=';

/** A card authentication's stream id from its EMV `acsTransID`, and back. */
export const cardAuthenticationIdOf = (acsTransID: string): string => `tds-${acsTransID}`;
export const acsTransIdOf = (cardAuthenticationId: string): string =>
  cardAuthenticationId.slice('tds-'.length);

/**
 * The 3-D Secure context: the access control server (AReq -> ARes), the distributor's answers to
 * out-of-band challenges, their deadlines and the results (RReq) sent back to the directory server. The PAN
 * of an AReq is used once to find the card through the cards contract's network API and is never kept,
 * logged or returned: the masked PAN only.
 */
export class ThreeDsService implements ThreeDsApi, AcsApi, ThreeDsVerificationApi {
  private challengeBaseUrl: string | null = null;

  constructor(
    private readonly ports: ThreeDsPorts,
    private readonly clock: Clock,
  ) {}

  // -------------------------------------------------------------------------------------------------
  // The ACS
  // -------------------------------------------------------------------------------------------------

  async authenticationRequest(environment: Environment, received: unknown): Promise<ARes | Erro> {
    const read = readEmvMessage('AReq', received, 'A');
    if ('error' in read) return read.error;
    const areq = read.message;
    if (environment === 'production' && !areq.dsURL.startsWith('https://')) {
      return this.erro(areq, '203', 'Format of one or more data elements is invalid', 'dsURL');
    }
    const payment = areq.messageCategory === '01';
    const currency = payment ? iso4217Alpha(areq.purchaseCurrency as string) : null;
    if (payment && !currency) {
      return this.erro(areq, '203', 'Format of one or more data elements is invalid', 'purchaseCurrency');
    }
    const amount = payment
      ? { minor: BigInt(areq.purchaseAmount as string), exponent: Number(areq.purchaseExponent) }
      : null;
    const card = await this.ports.cards.cardForAuthorization(environment, {
      pan: areq.acctNumber,
      expiry: areq.cardExpiryDate,
    });
    const now = this.clock.now();
    const merchantName = areq.merchantName ?? areq.threeDSRequestorName;
    const lowValue = amount !== null && withinFrictionlessLimit(amount);
    const outcome = acsOutcome({
      card,
      now,
      messageCategory: areq.messageCategory,
      deviceChannel: areq.deviceChannel,
      amount,
      challengeIndicator: areq.threeDSRequestorChallengeInd,
      decoupledRequested: areq.threeDSRequestorDecReqInd === 'Y',
      knownMerchant:
        card && lowValue ? await this.knownMerchant(environment, card.cardId, merchantName) : false,
    });
    const acsTransID = randomUUID();
    const ares: ARes = {
      messageType: 'ARes',
      messageVersion: EMV_3DS_VERSION,
      threeDSServerTransID: areq.threeDSServerTransID,
      dsTransID: areq.dsTransID,
      acsTransID,
      acsReferenceNumber: ACS_REFERENCE_NUMBER,
      acsOperatorID: ACS_OPERATOR_ID,
      dsReferenceNumber: areq.dsReferenceNumber,
      transStatus: outcome.transStatus,
    };
    if (outcome.transStatus === 'Y') {
      // Frictionless: the card was found (the rules need it for a Y).
      const found = card as NonNullable<typeof card>;
      const authenticationValue = await this.issueAuthenticationValue(environment, found.distributorId, {
        cardId: found.cardId,
        amount: amount ? decimalAmount(amount.minor, amount.exponent) : null,
        currency,
        merchantName,
        acsTransID,
        issuedAt: now.toISOString(),
      });
      return { ...ares, authenticationValue, eci: ECI.authenticated };
    }
    if (outcome.transStatus === 'N' || outcome.transStatus === 'R') {
      return { ...ares, transStatusReason: outcome.transStatusReason };
    }
    const browser = outcome.transStatus === 'C';
    if (browser && this.challengeBaseUrl === null) {
      // The challenge page's address is not known yet (the app is starting): no browser challenge.
      return {
        ...ares,
        transStatus: 'N',
        transStatusReason: TRANS_STATUS_REASONS.decoupledRequiredNotRequested,
      };
    }
    // The card was found (a challenge needs one).
    const found = card as NonNullable<typeof card>;
    await this.challenge(
      environment,
      areq,
      acsTransID,
      found,
      {
        merchantName,
        merchantAmount: amount ? decimalAmount(amount.minor, amount.exponent) : null,
        merchantCurrency: currency,
      },
      browser,
    );
    if (browser) {
      return {
        ...ares,
        authenticationType: OUT_OF_BAND,
        acsChallengeMandated: 'N',
        acsURL: `${this.challengeBaseUrl as string}${CHALLENGE_PAGE_PATH}/${environment}`,
      };
    }
    return {
      ...ares,
      authenticationType: DECOUPLED,
      acsDecConInd: 'Y',
      cardholderInfo: 'Approve this purchase in your card app',
    };
  }

  /**
   * Where browser challenges are served (the platform's public address: the page is a hosted page);
   * until it is known, a browser that needs a challenge gets N 23.
   */
  useChallengeBaseUrl(url: string): void {
    this.challengeBaseUrl = url.replace(/\/+$/, '');
  }

  async challengeRequest(environment: Environment, encoded: unknown): Promise<ChallengeScreen> {
    const read = readEmvMessage('CReq', fromBase64UrlJson(encoded), 'A');
    if ('error' in read) return { kind: 'invalid' };
    const creq = read.message;
    const id = cardAuthenticationIdOf(creq.acsTransID.toLowerCase());
    const store = this.ports.eventStore(environment);
    let { state } = await loadState(store, cardAuthenticationDecider, id);
    if (
      !isCardAuthentication(state) ||
      !state.transaction.notificationURL ||
      state.transaction.threeDSServerTransID !== creq.threeDSServerTransID
    ) {
      return { kind: 'invalid' };
    }
    if (state.status === 'pending' && this.clock.now().toISOString() >= state.expiresAt) {
      await this.expireIfDue(environment, id);
      ({ state } = await loadState(store, cardAuthenticationDecider, id));
    }
    const record = state as CardAuthenticationRecord;
    if (!record.decision) {
      return {
        kind: 'pending',
        merchantName: record.merchantName,
        merchantAmount: record.merchantAmount,
        merchantCurrency: record.merchantCurrency,
        maskedPan: record.maskedPan,
        expiresAt: record.expiresAt,
        creq: String(encoded),
      };
    }
    const cres: CRes = {
      messageType: 'CRes',
      messageVersion: record.transaction.messageVersion,
      threeDSServerTransID: record.transaction.threeDSServerTransID,
      acsTransID: creq.acsTransID,
      transStatus: record.decision.transStatus,
      challengeCompletionInd: 'Y',
    };
    return {
      kind: 'done',
      transStatus: record.decision.transStatus,
      notificationURL: record.transaction.notificationURL as string,
      cres: toBase64UrlJson(cres),
    };
  }

  /** Whether the cardholder approved a challenge of this card at this merchant before. */
  private async knownMerchant(
    environment: Environment,
    cardId: string,
    merchantName: string,
  ): Promise<boolean> {
    // Read-your-writes: a challenge the cardholder has just accepted counts, whichever process asks next.
    await this.ports.settle(environment);
    const { items } = await this.ports.readStore(environment).find(cardAuthenticationsProjection.collection, {
      filter: { cardId, merchantName, status: 'accepted' },
      sort: { field: 'createdAt', direction: 'asc' },
      page: 0,
      limit: 1,
    });
    return items.length > 0;
  }

  private async challenge(
    environment: Environment,
    areq: AReq,
    acsTransID: string,
    card: { cardId: string; distributorId: string; userId: string; walletId: string },
    purchase: { merchantName: string; merchantAmount: string | null; merchantCurrency: string | null },
    browser: boolean,
  ): Promise<void> {
    const program = this.ports.programs.programOf(card.distributorId);
    if (!program) throw new Error(`Card ${card.cardId} belongs to no known program`);
    const cardAuthenticationId = cardAuthenticationIdOf(acsTransID);
    const caller: Caller = {
      distributorId: card.distributorId,
      environment,
      program,
      requestId: cardAuthenticationId,
    };
    const wallet = await this.ports.wallets.getWallet(caller, card.walletId);
    const now = this.clock.now();
    // The program's deadline, shortened to the requestor's own decoupled maximum when that is shorter.
    const programSeconds = program.threeDs?.challengeDeadlineSeconds ?? DEFAULT_THREE_DS_DEADLINE_SECONDS;
    const requestorMinutes = Number(areq.threeDSRequestorDecMaxTime ?? 0);
    const seconds = requestorMinutes > 0 ? Math.min(programSeconds, requestorMinutes * 60) : programSeconds;
    await this.command(
      environment,
      cardAuthenticationId,
      callerContext(now, caller),
      {
        type: 'ChallengeCardholder',
        data: {
          cardAuthenticationId,
          distributorId: card.distributorId,
          userId: card.userId,
          cardId: card.cardId,
          walletId: card.walletId,
          walletAddress: wallet.depositAddress,
          purpose: areq.messageCategory === '01' ? 'payment' : 'cardVerification',
          ...purchase,
          maskedPan: maskedPanOf(areq.acctNumber),
          threedsRequestorAppUrl: areq.threeDSRequestorAppURL ?? null,
          expiresAt: new Date(now.getTime() + seconds * 1000).toISOString(),
          transaction: {
            messageVersion: areq.messageVersion,
            messageCategory: areq.messageCategory,
            threeDSServerTransID: areq.threeDSServerTransID,
            dsTransID: areq.dsTransID,
            dsURL: areq.dsURL,
            authenticationType: browser ? OUT_OF_BAND : DECOUPLED,
            notificationURL: browser ? (areq.notificationURL ?? null) : null,
          },
          now: now.toISOString(),
        },
      },
      true,
    );
  }

  private erro(
    areq: AReq,
    errorCode: Erro['errorCode'],
    errorDescription: string,
    errorDetail: string,
  ): Erro {
    return erro({
      errorComponent: 'A',
      errorCode,
      errorDescription,
      errorDetail,
      errorMessageType: 'AReq',
      threeDSServerTransID: areq.threeDSServerTransID,
      dsTransID: areq.dsTransID,
    });
  }

  // -------------------------------------------------------------------------------------------------
  // The distributor's answers
  // -------------------------------------------------------------------------------------------------

  async getCardAuthentication(caller: Caller, cardAuthenticationId: string): Promise<CardAuthenticationView> {
    const { state } = await loadState(
      this.ports.eventStore(caller.environment),
      cardAuthenticationDecider,
      cardAuthenticationId,
    );
    const record = isCardAuthentication(state) ? state : null;
    return toCardAuthenticationView(ownedBy(caller, record, 'Card authentication', cardAuthenticationId));
  }

  async acceptCardAuthentication(
    caller: Caller,
    cardAuthenticationId: string,
  ): Promise<CardAuthenticationView> {
    const { state } = await loadState(
      this.ports.eventStore(caller.environment),
      cardAuthenticationDecider,
      cardAuthenticationId,
    );
    const record = isCardAuthentication(state) && state.distributorId === caller.distributorId ? state : null;
    const now = this.clock.now().toISOString();
    // Issued (recorded) before the decision that hands it out; an answer refused below leaves a value no one
    // ever received, which nothing can use.
    const authenticationValue =
      record?.status === 'pending'
        ? await this.issueAuthenticationValue(caller.environment, record.distributorId, {
            cardId: record.cardId,
            amount: record.merchantAmount,
            currency: record.merchantCurrency,
            merchantName: record.merchantName,
            acsTransID: acsTransIdOf(cardAuthenticationId),
            issuedAt: now,
          })
        : // Never recorded nor sent: the decider refuses an answer to what is not a pending challenge.
          NO_AUTHENTICATION_VALUE;
    return this.answer(caller, cardAuthenticationId, (at) => ({
      type: 'AcceptCardAuthentication',
      data: { authenticationValue, eci: ECI.authenticated, now: at },
    }));
  }

  // -------------------------------------------------------------------------------------------------
  // Authentication values (CAVV): issued with a Y, verified by the issuer's authorizations
  // -------------------------------------------------------------------------------------------------

  /** Computes the value of `tx` and records its issue (`tav-` stream) before anyone receives it. */
  private async issueAuthenticationValue(
    environment: Environment,
    distributorId: string,
    tx: AuthenticatedTransaction,
  ): Promise<string> {
    const value = authenticationValueOf(this.ports.authenticationValueKey(environment), tx);
    const id = authenticationValueStreamOf(value);
    await handleCommand(
      this.ports.eventStore(environment),
      authenticationValueDecider,
      id,
      {
        type: 'IssueAuthenticationValue',
        data: { acsTransID: tx.acsTransID, distributorId, eci: ECI.authenticated, issuedAt: tx.issuedAt },
      },
      { occurredAt: tx.issuedAt, environment, distributorId, correlationId: id, causationId: id },
      { expectNew: true },
    );
    return value;
  }

  async verifyAuthenticationValue(
    environment: Environment,
    check: AuthenticationValueCheck,
  ): Promise<AuthenticationValueVerdict> {
    const store = this.ports.eventStore(environment);
    const id = authenticationValueStreamOf(String(check.value));
    const { state } = await loadState(store, authenticationValueDecider, id);
    const now = this.clock.now().toISOString();
    const refusal = authenticationValueRefusal(state, check.authorizationId, now);
    if (refusal || state.status === 'absent') return { verified: false, reason: refusal ?? 'unknown' };
    if (state.eci !== check.eci) return { verified: false, reason: 'eci' };
    const matches = authenticationValueMatches(
      this.ports.authenticationValueKey(environment),
      {
        cardId: check.cardId,
        amount: check.amount,
        currency: check.currency,
        merchantName: check.merchantName,
        acsTransID: state.acsTransID,
        issuedAt: state.issuedAt,
      },
      check.value,
    );
    if (!matches) return { verified: false, reason: 'mismatch' };
    try {
      // Spent by this authorization; the stream's version makes two authorizations racing for it one winner.
      await handleCommand(
        store,
        authenticationValueDecider,
        id,
        { type: 'UseAuthenticationValue', data: { authorizationId: check.authorizationId, now } },
        {
          occurredAt: now,
          environment,
          distributorId: state.distributorId,
          correlationId: check.authorizationId,
          causationId: check.authorizationId,
        },
      );
    } catch (error) {
      if (error instanceof DomainError && error.code === 'invalid_state_transition') {
        return { verified: false, reason: 'reused' };
      }
      throw error;
    }
    return { verified: true, eci: state.eci };
  }

  rejectCardAuthentication(caller: Caller, cardAuthenticationId: string): Promise<CardAuthenticationView> {
    return this.answer(caller, cardAuthenticationId, (now) => ({
      type: 'RejectCardAuthentication',
      data: { now },
    }));
  }

  private async answer(
    caller: Caller,
    cardAuthenticationId: string,
    command: (now: string) => CardAuthenticationCommand,
  ): Promise<CardAuthenticationView> {
    const context = callerContext(this.clock.now(), caller);
    const result = await handleCommand(
      this.ports.eventStore(caller.environment),
      cardAuthenticationDecider,
      cardAuthenticationId,
      (state) => {
        ownedBy(
          caller,
          isCardAuthentication(state) ? state : null,
          'Card authentication',
          cardAuthenticationId,
        );
        return command(context.occurredAt);
      },
      context,
    );
    return toCardAuthenticationView(result.state as CardAuthenticationRecord);
  }

  // -------------------------------------------------------------------------------------------------
  // Deadlines and results
  // -------------------------------------------------------------------------------------------------

  /** Expires the challenge when it is still pending past its deadline (the sweep); whether it did. */
  async expireIfDue(environment: Environment, cardAuthenticationId: string): Promise<boolean> {
    const store = this.ports.eventStore(environment);
    const { state } = await loadState(store, cardAuthenticationDecider, cardAuthenticationId);
    if (!isCardAuthentication(state)) return false;
    const now = this.clock.now().toISOString();
    const result = await handleCommand(
      store,
      cardAuthenticationDecider,
      cardAuthenticationId,
      { type: 'ExpireCardAuthentication', data: { now } },
      {
        occurredAt: now,
        environment,
        distributorId: state.distributorId,
        correlationId: cardAuthenticationId,
        causationId: cardAuthenticationId,
      },
    );
    return result.events.length > 0;
  }

  /**
   * Sends the decided challenge's RReq to the directory server and records its acknowledgement; a challenge
   * already acknowledged is not sent again. Throws when the DS does not acknowledge (the results saga
   * retries), so the 3DS server always learns the outcome.
   */
  async notifyResult(
    environment: Environment,
    cardAuthenticationId: string,
    causationId: string,
  ): Promise<void> {
    const { state } = await loadState(
      this.ports.eventStore(environment),
      cardAuthenticationDecider,
      cardAuthenticationId,
    );
    if (!isCardAuthentication(state) || !state.decision || state.notifiedAt) return;
    const { transaction, decision } = state;
    const rreq: RReq = {
      messageType: 'RReq',
      messageVersion: transaction.messageVersion,
      messageCategory: transaction.messageCategory,
      threeDSServerTransID: transaction.threeDSServerTransID,
      dsTransID: transaction.dsTransID,
      acsTransID: acsTransIdOf(cardAuthenticationId),
      transStatus: decision.transStatus,
      authenticationType: transaction.authenticationType,
      interactionCounter: '01',
      ...(decision.transStatus === 'Y'
        ? { authenticationValue: decision.authenticationValue as string, eci: decision.eci as string }
        : { transStatusReason: decision.transStatusReason as RReq['transStatusReason'] }),
      ...(state.status === 'expired' ? { challengeCancel: '05' } : {}),
    };
    let sent: unknown;
    try {
      sent = await this.ports.sendResult(environment, transaction.dsURL, rreq);
    } catch (error) {
      if (!(error instanceof DirectoryServerRefused)) throw error;
      // The AReq named a DS the platform may not reach: retrying changes nothing, and would hold back every
      // other result. Logged for operators; the challenge keeps its outcome (GET shows notifiedAt null).
      this.ports.logger.warn(
        { cardAuthenticationId, reason: error.message },
        'RReq not sent: the directory server URL is refused',
      );
      return;
    }
    const answer = readEmvMessage('RRes', sent, 'A');
    if ('error' in answer) {
      throw new Error(
        `The directory server did not acknowledge the RReq of ${cardAuthenticationId}: ${answer.error.errorCode} ${answer.error.errorDetail}`,
      );
    }
    const now = this.clock.now().toISOString();
    await this.command(
      environment,
      cardAuthenticationId,
      {
        occurredAt: now,
        environment,
        distributorId: state.distributorId,
        correlationId: cardAuthenticationId,
        causationId,
      },
      { type: 'RecordResultNotified', data: { resultsStatus: answer.message.resultsStatus, now } },
    );
  }

  private async command(
    environment: Environment,
    cardAuthenticationId: string,
    context: CommandContext,
    command: CardAuthenticationCommand,
    expectNew = false,
  ): Promise<CardAuthenticationRecord> {
    const result = await handleCommand(
      this.ports.eventStore(environment),
      cardAuthenticationDecider,
      cardAuthenticationId,
      command,
      context,
      { expectNew },
    );
    if (!isCardAuthentication(result.state)) {
      throw new DomainError('not_found', `Card authentication ${cardAuthenticationId} was not found`);
    }
    return result.state;
  }
}
