import type { TransStatus } from './emv-3ds';
import type { CardAuthenticationPurpose, CardAuthenticationStatus } from './card-authentication.types';

/** The outcome sent to the 3DS server (the RReq), once the challenge is answered or expired. */
export interface CardAuthenticationResult {
  transStatus: Extract<TransStatus, 'Y' | 'N'>;
  /** The EMV transStatusReason of a refusal (`01` rejected, `14` timed out at the ACS); null for Y. */
  transStatusReason: string | null;
  /** When the directory server acknowledged the RReq (its RRes); null while it has not. */
  notifiedAt: string | null;
}

/**
 * A card authentication as the API returns it (`GET /v1/3ds/{id}`, the `cardAuthentication.*` Events),
 * plus the owning distributor (kept for tenant filtering, never rendered). Never the PAN: `maskedPan` only.
 */
export interface CardAuthenticationView {
  /** `tds-<uuid>`: the uuid is the ACS transaction id (`acsTransID`) of the EMV messages. */
  id: string;
  distributorId: string;
  userId: string;
  cardId: string;
  walletId: string;
  /** The wallet's deposit address (null while it has none). */
  walletAddress: string | null;
  purpose: CardAuthenticationPurpose;
  merchantName: string;
  maskedPan: string;
  /** Decimal string in `merchantCurrency`; null for a card verification. */
  merchantAmount: string | null;
  /** ISO 4217 alphabetic; null for a card verification. */
  merchantCurrency: string | null;
  /** The merchant app to deep-link back to (app channel), or null. */
  threedsRequestorAppUrl: string | null;
  status: CardAuthenticationStatus;
  expiresAt: string;
  result: CardAuthenticationResult | null;
  createdAt: string;
  updatedAt: string;
  [field: string]: unknown;
}

/** The card authentication of the API (without internal fields). */
export function renderCardAuthentication(
  view: CardAuthenticationView,
): Omit<CardAuthenticationView, 'distributorId'> {
  const { distributorId: _distributorId, ...rendered } = view;
  return rendered;
}
