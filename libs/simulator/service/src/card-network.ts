import {
  F,
  IsoLinkError,
  IsoMessage,
  IsoServer,
  StanSequence,
  type IsoLinkEvent,
  type IsoLinkOptions,
} from '@cip/shared/iso8583';
import { RrnSequence, standInDecision, type StandInRules } from '@cip/simulator/domain';
import type { Clock } from '@cip/shared/runtime';
import { randomInt } from 'node:crypto';
import { AdviceQueue, type AdviceQueueOptions } from './advice-queue';
import { standInAdvice } from './network/acquirer-messages';

export interface CardNetworkOptions {
  clock: Clock;
  /** How long the network waits for the issuer's 0110 before standing in (SIMULATOR_STAND_IN_TIMEOUT_MS). */
  standInTimeoutMs: number;
  standIn: StandInRules;
  /** How long the network waits for an 0410 before the acquirer's 0420 takes over. Default: standInTimeoutMs. */
  reversalTimeoutMs?: number;
  advices?: AdviceQueueOptions;
  /** Link limits and echo (the defaults of `@cip/shared/iso8583` otherwise). */
  link?: Omit<IsoLinkOptions, 'handler' | 'onEvent'>;
  onEvent?: (event: IsoLinkEvent) => void;
}

/** The answer an acquirer got for its 0100. */
export interface AuthorizationAnswer {
  /** `0110` from the issuer, or null when the network stood in. */
  response: IsoMessage | null;
  responseCode: string;
  approvalCode: string | null;
  /** Set when the network stood in: the advice's acknowledgement (store and forward keeps trying). */
  standIn: { reason: 'STIP:timeout' | 'STIP:unavailable'; acknowledged: Promise<IsoMessage> } | null;
}

export interface ReversalAnswer {
  /** `0410` from the issuer, or null when it did not answer and the 0420 advice took over. */
  response: IsoMessage | null;
  responseCode: string;
  /** Set when the 0420 advice was queued: resolves with its 0430. */
  advice: Promise<IsoMessage> | null;
}

/**
 * The card network of the sandbox: accepts the issuer's connection (the platform's authorizations service is
 * an `IsoClient` of it, CARD_NETWORK_ISO_ADDRESS), forwards acquirers' requests to it, and stands in when the
 * issuer does not answer within `standInTimeoutMs` (or is not connected): it decides by the stand-in rules,
 * answers the acquirer, and forwards an 0120 advice until the issuer acknowledges it, as Visa's and
 * Mastercard's STIP do. Inbound requests from the issuer are not expected; the link answers echoes itself.
 */
export class CardNetwork {
  private readonly server: IsoServer;
  private readonly stans = new StanSequence();
  private readonly rrns: RrnSequence;
  readonly advices: AdviceQueue;

  constructor(private readonly options: CardNetworkOptions) {
    // The sequence starts from the clock (milliseconds since UTC midnight: the RRN's prefix is the day), so a
    // network restarted a moment later does not reuse the references it gave that day.
    this.rrns = new RrnSequence(options.clock.now().getTime() % 86_400_000);
    this.server = new IsoServer({
      ...options.link,
      onEvent: (event) => {
        // An issuer (re)connected: forward what waited for it now rather than at the next retry.
        if (event.type === 'connected') this.advices.flush();
        options.onEvent?.(event);
      },
    });
    this.advices = new AdviceQueue(
      (message, requestOptions) => this.server.request(message, requestOptions),
      {
        ackTimeoutMs: options.standInTimeoutMs,
        ...options.advices,
      },
    );
  }

  /** Listens for the issuer; resolves with `host:port`. */
  async listen(port = 0, host = '127.0.0.1'): Promise<string> {
    const bound = await this.server.listen(port, host);
    return `${host}:${bound}`;
  }

  /** Whether an issuer is connected. */
  get issuerConnected(): boolean {
    for (const connection of this.server.connections) if (connection.isOpen) return true;
    return false;
  }

  /** A new STAN (DE-011) and RRN (DE-037) for an acquirer's message. */
  nextReferences(at: Date): { stan: string; rrn: string } {
    return { stan: this.stans.next(), rrn: this.rrns.next(at) };
  }

  /** A new STAN for a later message of a transaction (a reversal, its advice). */
  nextStan(): string {
    return this.stans.next();
  }

  /** Forwards an 0100 to the issuer; stands in when it does not answer in time. */
  async authorize(request: IsoMessage): Promise<AuthorizationAnswer> {
    try {
      const response = await this.server.request(request, { timeoutMs: this.options.standInTimeoutMs });
      return {
        response,
        responseCode: response.get(F.RESPONSE_CODE) ?? '96',
        approvalCode: response.get(F.APPROVAL_CODE) ?? null,
        standIn: null,
      };
    } catch (error) {
      if (!(error instanceof IsoLinkError)) throw error;
      // The issuer's late 0110, if any, is ignored by the link (an unmatched response): the network's
      // decision stands and the advice tells the issuer.
      const reason = error.code === 'timeout' ? 'STIP:timeout' : 'STIP:unavailable';
      const outcome = standInDecision(
        {
          expiryYymm: request.get(F.EXPIRY) ?? '',
          processingCode: request.get(F.PROCESSING_CODE) ?? '',
          amountMinor: Number(request.get(F.AMOUNT_TRANSACTION) ?? '0'),
        },
        this.options.standIn,
        this.options.clock.now(),
        reason,
        approvalCode(),
      );
      const acknowledged = this.advices.enqueue(standInAdvice(request, outcome));
      return {
        response: null,
        responseCode: outcome.responseCode,
        approvalCode: outcome.approvalCode ?? null,
        standIn: { reason, acknowledged },
      };
    }
  }

  /**
   * Sends an 0400; when the issuer does not answer (or is not connected), the acquirer's reversal advice
   * (`advice`, an 0420) is forwarded until acknowledged instead, and the acquirer is told `00`: a reversal
   * is the acquirer's decision, the issuer only records it.
   */
  async reverse(request: IsoMessage, advice: () => IsoMessage): Promise<ReversalAnswer> {
    try {
      const response = await this.server.request(request, {
        timeoutMs: this.options.reversalTimeoutMs ?? this.options.standInTimeoutMs,
      });
      return { response, responseCode: response.get(F.RESPONSE_CODE) ?? '96', advice: null };
    } catch (error) {
      if (!(error instanceof IsoLinkError)) throw error;
      return { response: null, responseCode: '00', advice: this.advices.enqueue(advice()) };
    }
  }

  /** Stops accepting, closes the issuer's connection and stops forwarding advices. */
  async close(): Promise<void> {
    this.advices.close();
    await this.server.close();
  }
}

/** DE-038 of a stand-in approval: six characters, as networks issue them (digits here). */
function approvalCode(): string {
  return String(randomInt(0, 1_000_000)).padStart(6, '0');
}
