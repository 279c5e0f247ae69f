import { domainEventReader, type DomainEvent } from '@cip/shared/contracts';
import type {
  CardAuthenticationDecidedEvent,
  CardAuthenticationPurpose,
  MessageCategory,
} from '@cip/three-ds/contract';

// ---------------------------------------------------------------------------------------------------
// Domain events of a card authentication stream (`tds-<uuid>`). Never the PAN: the masked PAN only. The
// EMV transaction (its ids and the DS's URL) is kept to send the RReq the challenge ends with.
// ---------------------------------------------------------------------------------------------------

/** The EMV transaction a challenge belongs to, as its AReq named it. */
export interface EmvTransaction {
  messageVersion: string;
  messageCategory: MessageCategory;
  threeDSServerTransID: string;
  dsTransID: string;
  /** Where the RReq goes (the directory server). */
  dsURL: string;
  /** 03 out of band in the browser challenge (ARes `C`), 04 decoupled (ARes `D`). */
  authenticationType: '03' | '04';
  /** Browser challenge: where the final CRes is posted; null for a decoupled one. */
  notificationURL: string | null;
}

export type CardAuthenticationChallenged = DomainEvent<
  'CardAuthenticationChallenged',
  {
    cardAuthenticationId: string;
    distributorId: string;
    userId: string;
    cardId: string;
    walletId: string;
    walletAddress: string | null;
    purpose: CardAuthenticationPurpose;
    merchantName: string;
    maskedPan: string;
    merchantAmount: string | null;
    merchantCurrency: string | null;
    threedsRequestorAppUrl: string | null;
    expiresAt: string;
    createdAt: string;
    transaction: EmvTransaction;
  }
>;

export type CardAuthenticationOutcome = 'accepted' | 'rejected' | 'expired';

/**
 * The challenge is over: the distributor accepted (`Y`, with the authentication value and ECI the RReq
 * carries) or rejected it (`N`, reason 01), or its deadline passed (`N`, reason 14: fail closed).
 */
export type CardAuthenticationDecided = DomainEvent<
  'CardAuthenticationDecided',
  {
    cardAuthenticationId: string;
    outcome: CardAuthenticationOutcome;
    transStatus: 'Y' | 'N';
    transStatusReason: string | null;
    authenticationValue: string | null;
    eci: string | null;
    at: string;
  }
>;

/** The directory server acknowledged the RReq (its RRes `resultsStatus`). */
export type CardAuthenticationResultNotified = DomainEvent<
  'CardAuthenticationResultNotified',
  { cardAuthenticationId: string; resultsStatus: string; at: string }
>;

export type CardAuthenticationEvent =
  CardAuthenticationChallenged | CardAuthenticationDecided | CardAuthenticationResultNotified;

/** The contract publishes `CardAuthenticationDecided`: its data must keep what the contract says. */
export const DECIDED_MATCHES_THE_CONTRACT: CardAuthenticationDecided['data'] extends CardAuthenticationDecidedEvent['data']
  ? true
  : never = true;

/** How card authentication streams are read (no upcaster yet: every event is still in its first shape). */
export const cardAuthenticationEvents = domainEventReader<CardAuthenticationEvent>();
