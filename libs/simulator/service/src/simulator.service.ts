import type { AuthorizationsApi, AuthorizationView } from '@cip/authorizations/contract';
import type { CardholderDetails, CardSandboxApi } from '@cip/cards/contract';
import { Caller, DomainError, Environment, notFound } from '@cip/shared/contracts';
import { encryptPinBlock, F, pinBlockFormat0 } from '@cip/shared/iso8583';
import { KeyedSerializer, type Clock } from '@cip/shared/runtime';
import type {
  ClearingFileSink,
  ClearingPresentment,
  NetworkExchange,
  SimulateAuthorizationInput,
  SimulateClearingInput,
  SimulatedAuthorizationResult,
  SimulatedClearingResult,
  SimulatedMerchant,
  SimulateRefundInput,
  SimulateReversalInput,
  SimulatorApi,
} from '@cip/simulator/contract';
import { writeClearingFile } from '@cip/simulator/contract';
import { currencyAlpha, currencyNumeric, toMinorUnits } from '@cip/simulator/domain';
import {
  authorizationRequest,
  PROCESSING_CODES,
  reversalMessage,
  standInAdvice,
  type AcquirerTransaction,
  type CardAcceptor,
  type EntryMode,
} from './network/acquirer-messages';
import type { CardNetwork } from './card-network';
import type { ThreeDsServerStore } from './three-ds/three-ds-server-store';
import type { NetworkTransaction, SimulatorStore } from './simulator-store';

/** The simulated acquirer and its defaults (the sandbox has one acquirer). */
export interface SimulatedAcquirer {
  /** DE-032. */
  acquirerId: string;
  /** DE-019, ISO 3166 numeric. */
  country: string;
  /** DE-033, the network's id. */
  forwardingId?: string;
  /** The zone PIN key shared with the issuer (hex, double or triple length TDES). */
  zpkHex: string;
}

export interface SimulatorPorts {
  /** The network of an environment; null in production (the simulations are sandbox only). */
  network(environment: Environment): CardNetwork | null;
  store(environment: Environment): SimulatorStore;
  /** The sandbox 3DS server's memory, where a challenge's RReq (and its authentication value) is found. */
  threeDsStore?(environment: Environment): ThreeDsServerStore;
  cards: CardSandboxApi;
  /** The issuer's records; null while the authorizations context is not in the runtime. */
  authorizations: AuthorizationsApi | null;
  /** The clearing importer; null until the issuer side provides one (the files are then only stored). */
  clearingSink: ClearingFileSink | null;
  acquirer: SimulatedAcquirer;
  /** How long a simulation waits for a stand-in advice to be acknowledged before answering. Default 2 s. */
  adviceWaitMs?: number;
}

const DEFAULT_MERCHANT_ID = 'SANDBOXMERCH001';
const DEFAULT_TERMINAL_ID = 'SBXTERM1';
/** DE-039 `10`: the issuer approved less than asked, the approved amount in its DE-004. */
const PARTIAL_APPROVAL = '10';
/**
 * DE-039 of an 0410 that reversed nothing: `12` (the authorization holds nothing any more), `25` (the issuer
 * has no record of it). docs/iso8583.md.
 */
const NOTHING_REVERSED = new Set(['12', '25']);

/**
 * The sandbox's acquirers (`SimulatorApi`): each simulation builds the ISO 8583 message a terminal's acquirer
 * would send and puts it on the card network link, so the issuer decides exactly as for production traffic.
 * The cardholder's PAN, CVV2 and expiry come from the card vault through `CardSandboxApi`, live only in the
 * message, and are never stored or logged (the network's journal keeps the card id and last four).
 */
export class SimulatorService implements SimulatorApi {
  /** The reversal in progress per transaction (RRN), so that concurrent ones queue. */
  private readonly reversing = new KeyedSerializer();

  constructor(
    private readonly ports: SimulatorPorts,
    private readonly clock: Clock,
  ) {}

  async simulateAuthorization(
    caller: Caller,
    input: SimulateAuthorizationInput,
  ): Promise<SimulatedAuthorizationResult> {
    const threeDs = this.threeDsAuthentication(caller, input);
    return this.authorize(
      caller,
      input,
      PROCESSING_CODES.purchase,
      input.entryMode ?? 'ecommerce',
      undefined,
      threeDs,
    );
  }

  /**
   * The 3-D Secure authentication the 0100 carries: the one given, or the RReq value the sandbox 3DS server
   * received for the challenge `cardAuthenticationId` of this distributor and card.
   */
  private threeDsAuthentication(
    caller: Caller,
    input: SimulateAuthorizationInput,
  ): AcquirerTransaction['threeDs'] {
    // Given both, the explicit value is sent (the sandbox lets a test send another value than the RReq's).
    if (input.threeDs) {
      return { authenticationValue: input.threeDs.authenticationValue, eci: input.threeDs.eci ?? '05' };
    }
    if (!input.cardAuthenticationId) return undefined;
    const id = input.cardAuthenticationId;
    const known = this.ports.threeDsStore?.(caller.environment).byAcsTransID(id.replace(/^tds-/, ''));
    if (!known || known.distributorId !== caller.distributorId) {
      throw notFound('Simulated 3DS authentication', id);
    }
    if (known.cardId !== input.cardId) {
      throw new DomainError('validation_error', 'The 3DS authentication is not of this card', [
        { field: 'cardAuthenticationId', message: `not an authentication of card ${input.cardId}` },
      ]);
    }
    const value = known.result?.authenticationValue;
    if (!value) {
      throw new DomainError(
        'invalid_state_transition',
        `Card authentication ${id} has no authentication value: it is not accepted (yet)`,
      );
    }
    return { authenticationValue: value, eci: known.result?.eci ?? '05' };
  }

  async simulateRefund(caller: Caller, input: SimulateRefundInput): Promise<SimulatedAuthorizationResult> {
    const original = input.authorizationId ? this.refundable(caller, input) : undefined;
    return this.authorize(caller, input, PROCESSING_CODES.refund, 'ecommerce', original?.tx.rrn);
  }

  /** The payment a refund names: this card's, approved, a purchase (a refund is not refunded). */
  private refundable(caller: Caller, input: SimulateRefundInput): NetworkTransaction {
    const known = this.carried(caller, input.authorizationId as string);
    if (known.cardId !== input.cardId) {
      throw new DomainError('validation_error', 'The refunded authorization is not a payment of this card', [
        { field: 'authorizationId', message: `not an authorization of card ${input.cardId}` },
      ]);
    }
    if (known.responseCode !== '00' || known.tx.processingCode !== PROCESSING_CODES.purchase) {
      throw new DomainError(
        'invalid_state_transition',
        `Authorization ${input.authorizationId} is not an approved payment: there is nothing to refund`,
      );
    }
    return known;
  }

  async simulateReversal(
    caller: Caller,
    input: SimulateReversalInput,
  ): Promise<SimulatedAuthorizationResult> {
    const network = this.network(caller);
    const known = this.carried(caller, input.authorizationId);
    // One reversal of a transaction at a time: each reads what is left after the previous one.
    return this.reversing.run(known.tx.rrn, () => this.reverse(caller, network, input));
  }

  private async reverse(
    caller: Caller,
    network: CardNetwork,
    input: SimulateReversalInput,
  ): Promise<SimulatedAuthorizationResult> {
    const store = this.ports.store(caller.environment);
    const known = this.carried(caller, input.authorizationId);
    if (known.responseCode !== '00' && known.responseCode !== PARTIAL_APPROVAL) {
      throw new DomainError(
        'invalid_state_transition',
        `Authorization ${input.authorizationId} was declined (${known.responseCode}): there is nothing to reverse`,
      );
    }
    const remaining = (known.approvedMinor ?? known.tx.amountMinor) - known.reversedMinor;
    const currency = currencyAlpha(known.tx.currencyNumeric) ?? 'USD';
    const amount = input.amount === undefined ? remaining : this.minorUnits(input.amount, currency, 'amount');
    if (remaining <= 0) {
      throw new DomainError(
        'invalid_state_transition',
        `Authorization ${input.authorizationId} is already fully reversed`,
      );
    }
    if (amount > remaining) {
      throw new DomainError(
        'validation_error',
        'The reversal is larger than what is left of the authorization',
        [{ field: 'amount', message: `at most ${remaining} minor units of ${currency}` }],
      );
    }
    const card = await this.ports.cards.cardholderDetails(caller, known.cardId);
    const reversal = { stan: network.nextStan(), at: this.clock.now(), remainingMinor: remaining - amount };
    const request = reversalMessage(known.tx, card, reversal);
    const adviceStan = network.nextStan();
    const answer = await network.reverse(request, () =>
      reversalMessage(known.tx, card, { ...reversal, stan: adviceStan }, '0420'),
    );
    const refused = answer.response !== null && answer.responseCode !== '00';
    if (refused && NOTHING_REVERSED.has(answer.responseCode)) {
      // The issuer reversed nothing: the acquirer's books stay as they were, and the caller hears why.
      const issuer = await this.issuerRecord(caller, known.tx);
      throw new DomainError(
        'invalid_state_transition',
        nothingToReverse(input.authorizationId, issuer, answer),
      );
    }
    // Another refusal (a malfunction) is shown as the network answered it; nothing was reversed either.
    if (!refused) store.recordReversal(known.tx.rrn, known.reversedMinor + amount);
    if (answer.advice) {
      store.oweAdvice(known.tx.rrn, {
        kind: 'reversal',
        stan: adviceStan,
        reversalStan: reversal.stan,
        at: reversal.at.toISOString(),
        remainingMinor: reversal.remainingMinor,
      });
      void answer.advice.then(() => store.adviceAcknowledged(known.tx.rrn, adviceStan));
    }
    const acknowledged = answer.advice && network.issuerConnected ? await this.within(answer.advice) : null;
    return {
      authorization: await this.issuerRecord(caller, known.tx),
      network: {
        acquirerId: known.tx.acquirerId,
        rrn: known.tx.rrn,
        stan: answer.advice ? adviceStan : reversal.stan,
        requestMti: answer.advice ? '0420' : '0400',
        responseMti: answer.response ? answer.response.mti : acknowledged ? '0430' : null,
        responseCode: answer.responseCode,
        approvalCode: null,
        advice: answer.advice ? 'reversal_advice' : null,
        adviceAcknowledged: answer.advice ? acknowledged !== null : null,
      },
    };
  }

  async simulateClearing(caller: Caller, input: SimulateClearingInput): Promise<SimulatedClearingResult> {
    const network = this.network(caller);
    const store = this.ports.store(caller.environment);
    const now = this.clock.now();
    let presentment: Omit<ClearingPresentment, 'sequence'>;
    if (input.authorizationId) {
      // cardId, currency and merchant are a force post's; a presentment takes them from its authorization.
      const known = this.carried(caller, input.authorizationId);
      const currency = currencyAlpha(known.tx.currencyNumeric) ?? 'USD';
      presentment = {
        kind: 'presentment',
        acquirerId: known.tx.acquirerId,
        rrn: known.tx.rrn,
        approvalCode: known.approvalCode ?? '',
        cardId: known.cardId,
        panLast4: known.panLast4,
        processingCode: known.tx.processingCode,
        amountMinor:
          input.amount === undefined
            ? (known.approvedMinor ?? known.tx.amountMinor)
            : this.minorUnits(input.amount, currency, 'amount'),
        currency,
        ...acceptorFields(known.tx.acceptor),
        presentedAt: now.toISOString(),
      };
      // The issuer is asked first whether the authorization can still take a presentment (cleared,
      // reversed, declined...: 409 saying why, and no file is cut); a file's line cannot answer.
      await this.ports.clearingSink?.checkPresentment(caller.environment, { sequence: 1, ...presentment });
    } else {
      const missing = (['cardId', 'amount', 'merchant'] as const).filter(
        (field) => input[field] === undefined,
      );
      if (missing.length) {
        throw new DomainError(
          'validation_error',
          'A force post (no authorizationId) needs cardId, amount and merchant',
          missing.map((field) => ({ field, message: 'required without authorizationId' })),
        );
      }
      const currency = input.currency ?? 'USD';
      const amountMinor = this.minorUnits(input.amount as number, currency, 'amount');
      const card = await this.ports.cards.cardholderDetails(caller, input.cardId as string);
      const { rrn } = network.nextReferences(now);
      presentment = {
        kind: 'force_post',
        acquirerId: this.ports.acquirer.acquirerId,
        rrn,
        approvalCode: '',
        cardId: input.cardId as string,
        panLast4: card.pan.slice(-4),
        processingCode: PROCESSING_CODES.purchase,
        amountMinor,
        currency,
        ...acceptorFields(acceptorOf(input.merchant as SimulatedMerchant)),
        presentedAt: now.toISOString(),
      };
    }
    // The sandbox cuts a file per presentment and delivers it at once: the importer sees it immediately.
    const sequence = store.nextFileSequence();
    const businessDate = now.toISOString().slice(0, 10);
    const header = {
      fileId: `CLR-${caller.environment}-${businessDate.replace(/-/g, '')}-${String(sequence).padStart(6, '0')}`,
      businessDate,
      createdAt: now.toISOString(),
    };
    const presentments = [{ sequence: 1, ...presentment }];
    const file = { ...header, presentments, content: writeClearingFile(header, presentments) };
    store.storeClearingFile(file);
    const sink = this.ports.clearingSink;
    if (sink) await sink.deliver(caller.environment, file);
    return { file, delivered: sink !== null };
  }

  private async authorize(
    caller: Caller,
    input: SimulateRefundInput & Pick<SimulateAuthorizationInput, 'cvv2' | 'pin'>,
    processingCode: string,
    entryMode: EntryMode,
    originalRrn?: string,
    threeDs?: AcquirerTransaction['threeDs'],
  ): Promise<SimulatedAuthorizationResult> {
    const network = this.network(caller);
    const currency = input.currency ?? 'USD';
    const amountMinor = this.minorUnits(input.amount, currency, 'amount');
    const card: CardholderDetails = await this.ports.cards.cardholderDetails(caller, input.cardId);
    const at = this.clock.now();
    const { acquirer } = this.ports;
    const tx: AcquirerTransaction = {
      acquirerId: acquirer.acquirerId,
      acquirerCountry: acquirer.country,
      forwardingId: acquirer.forwardingId,
      ...network.nextReferences(at),
      processingCode,
      amountMinor,
      currencyNumeric: currencyNumeric(currency) as string,
      acceptor: acceptorOf(input.merchant),
      entryMode,
      at,
      ...(originalRrn ? { originalRrn } : {}),
      ...(threeDs ? { threeDs } : {}),
    };
    const request = authorizationRequest(tx, {
      pan: card.pan,
      expMonth: card.expMonth,
      expYear: card.expYear,
      cvv2: input.cvv2 ?? card.cvv2,
      pinBlock: input.pin
        ? encryptPinBlock(pinBlockFormat0(input.pin, card.pan), acquirer.zpkHex)
        : undefined,
    });
    const answer = await network.authorize(request);
    const store = this.ports.store(caller.environment);
    store.record({
      distributorId: caller.distributorId,
      cardId: input.cardId,
      panLast4: card.pan.slice(-4),
      tx,
      responseCode: answer.responseCode,
      approvalCode: answer.approvalCode,
      ...(answer.responseCode === PARTIAL_APPROVAL && answer.response
        ? { approvedMinor: Number(answer.response.get(F.AMOUNT_TRANSACTION)) }
        : {}),
      reversedMinor: 0,
      authorizationId: null,
    });
    if (answer.standIn) {
      // Journaled before the acquirer hears the decision: the advice survives a restart (without card data).
      store.oweAdvice(tx.rrn, {
        kind: 'stand_in',
        stan: tx.stan,
        responseCode: answer.responseCode,
        approvalCode: answer.approvalCode,
        reason: answer.standIn.reason,
      });
      void answer.standIn.acknowledged.then(() => store.adviceAcknowledged(tx.rrn, tx.stan));
    }
    // A stood-in authorization reaches the issuer with its advice: wait (a little) for it to be recorded.
    // With no issuer connected at all there is nothing to wait for: the advice waits for it in the queue.
    const acknowledged =
      answer.standIn && network.issuerConnected ? await this.within(answer.standIn.acknowledged) : null;
    const exchange: NetworkExchange = {
      acquirerId: tx.acquirerId,
      rrn: tx.rrn,
      stan: tx.stan,
      requestMti: answer.standIn ? '0120' : '0100',
      responseMti: answer.response ? answer.response.mti : acknowledged ? '0130' : null,
      responseCode: answer.responseCode,
      approvalCode: answer.approvalCode,
      advice: answer.standIn ? 'stand_in' : null,
      adviceAcknowledged: answer.standIn ? acknowledged !== null : null,
    };
    return { authorization: await this.issuerRecord(caller, tx), network: exchange };
  }

  /**
   * After a restart: queues again every advice the journal says is owed, rebuilt with the PAN read again from
   * the card vault (the journal holds no card data). Resolves with how many were queued and how many could not
   * be rebuilt (the card's details unavailable: they stay owed and are tried at the next start).
   */
  async forwardOwedAdvices(environment: Environment): Promise<{ queued: number; failed: number }> {
    const network = this.ports.network(environment);
    if (!network) return { queued: 0, failed: 0 };
    const store = this.ports.store(environment);
    let queued = 0;
    let failed = 0;
    for (const { transaction, advice } of store.owedAdvices()) {
      let card: CardholderDetails;
      try {
        card = await this.ports.cards.cardholderDetails(
          recoveryCaller(transaction, environment),
          transaction.cardId,
        );
      } catch {
        failed++;
        continue;
      }
      const { tx } = transaction;
      const message =
        advice.kind === 'stand_in'
          ? standInAdvice(
              authorizationRequest(tx, { pan: card.pan, expMonth: card.expMonth, expYear: card.expYear }),
              {
                responseCode: advice.responseCode,
                approvalCode: advice.approvalCode ?? undefined,
                reason: advice.reason,
              },
            )
          : reversalMessage(
              tx,
              card,
              { stan: advice.stan, at: new Date(advice.at), remainingMinor: advice.remainingMinor },
              '0420',
            );
      void network.advices.enqueue(message).then(() => store.adviceAcknowledged(tx.rrn, advice.stan));
      queued++;
    }
    return { queued, failed };
  }

  /** The issuer's record of a transaction, and the network remembers its id for later reversals and clearing. */
  private async issuerRecord(caller: Caller, tx: AcquirerTransaction): Promise<AuthorizationView | null> {
    const authorizations = this.ports.authorizations;
    if (!authorizations) return null;
    const view = await authorizations.findByNetworkReference(caller, {
      acquirerId: tx.acquirerId,
      rrn: tx.rrn,
    });
    if (view) this.ports.store(caller.environment).linkAuthorization(tx.rrn, view.id);
    return view;
  }

  private carried(caller: Caller, authorizationId: string): NetworkTransaction {
    const known = this.ports.store(caller.environment).byAuthorizationId(authorizationId);
    // Another distributor's authorization is as unknown as a missing one.
    if (!known || known.distributorId !== caller.distributorId)
      throw notFound('Authorization', authorizationId);
    return known;
  }

  private network(caller: Caller): CardNetwork {
    const network = this.ports.network(caller.environment);
    if (!network)
      throw new DomainError('sandbox_only', 'The card network simulator runs in the sandbox only');
    return network;
  }

  private minorUnits(amount: number, currency: string, field: string): number {
    if (!currencyNumeric(currency)) {
      throw new DomainError(
        'validation_error',
        `The simulated acquirers do not accept ${currency.slice(0, 8)}`,
        [{ field: 'currency', message: 'not a currency of the simulator (see the operation description)' }],
      );
    }
    const minor = toMinorUnits(amount, currency);
    if (minor === null) {
      throw new DomainError('validation_error', `${field} is not a positive amount of ${currency}`, [
        {
          field,
          message: `a positive amount with at most the decimals of ${currency}, below 10^12 minor units`,
        },
      ]);
    }
    return minor;
  }

  /** The promise's value, or null if it takes longer than `adviceWaitMs` (the advice is still forwarded). */
  private within<T>(promise: Promise<T>): Promise<T | null> {
    let timer: NodeJS.Timeout | undefined;
    const timeout = new Promise<null>((resolve) => {
      timer = setTimeout(() => resolve(null), this.ports.adviceWaitMs ?? 2_000);
    });
    return Promise.race([promise, timeout]).finally(() => clearTimeout(timer));
  }
}

/**
 * Who the network acts for when it forwards an advice after a restart: the transaction's distributor, in its
 * environment. `cardholderDetails` reads only these two; the program is not the network's to know.
 */
function recoveryCaller(transaction: NetworkTransaction, environment: Environment): Caller {
  return {
    distributorId: transaction.distributorId,
    environment,
    requestId: `simulator-advice-${transaction.tx.rrn}`,
    program: { allowedCountries: [], b2b: false, prepaid: false, kycImportEnabled: false },
  };
}

/** Why the issuer reversed nothing, from its record of the authorization (its status tells). */
function nothingToReverse(
  authorizationId: string,
  issuer: AuthorizationView | null,
  answer: { responseCode: string },
): string {
  switch (issuer?.status) {
    case 'cleared':
      return `Authorization ${authorizationId} is cleared: nothing is held to reverse`;
    case 'reversed':
      return `Authorization ${authorizationId} is already fully reversed`;
    case 'expired':
      return `Authorization ${authorizationId} has expired: nothing is held to reverse`;
    case 'rejected':
      return `Authorization ${authorizationId} was declined: there is nothing to reverse`;
    default:
      return `The issuer reversed nothing of authorization ${authorizationId} (response code ${answer.responseCode})`;
  }
}

function acceptorOf(merchant: SimulatedMerchant): CardAcceptor {
  return {
    name: merchant.name,
    city: merchant.city,
    country: merchant.country,
    mcc: merchant.mcc,
    merchantId: merchant.mid ?? DEFAULT_MERCHANT_ID,
    terminalId: merchant.terminalId ?? DEFAULT_TERMINAL_ID,
  };
}

function acceptorFields(acceptor: CardAcceptor) {
  return {
    mcc: acceptor.mcc,
    merchantName: acceptor.name,
    merchantCity: acceptor.city,
    merchantCountry: acceptor.country,
    merchantId: acceptor.merchantId,
    terminalId: acceptor.terminalId,
  };
}
