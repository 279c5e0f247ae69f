import type { DigitalWalletName, ProvisioningMethod, TokenStatus } from './token.types';

/**
 * A digital-wallet token of a card as the API returns it, plus the owning distributor (kept for tenant
 * filtering, never rendered). Nothing of the card number: the token service's reference only.
 */
export interface TokenView {
  id: string;
  distributorId: string;
  cardId: string;
  userId: string;
  digitalWalletName: DigitalWalletName;
  /** The token service's reference of the token (what the wallet reports, `activate-tokenization` takes). */
  tokenReferenceId: string;
  provisioning: ProvisioningMethod;
  status: TokenStatus;
  createdAt: string;
  updatedAt: string;
  [field: string]: unknown;
}

/** The token record of the API (without internal fields). */
export function renderToken(view: TokenView): Omit<TokenView, 'distributorId'> {
  const { distributorId: _distributorId, ...rendered } = view;
  return rendered;
}
