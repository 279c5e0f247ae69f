import type { USDC } from './money';

/**
 * A wallet as the API returns it, plus its owner (kept for tenant filtering, never rendered). Amounts are
 * USDC numbers for display; the ledger itself is in minor units in the events. A wallet whose
 * provisioning failed is listed too, with `status: provisioning_failed` and `error.code:
 * create_wallet_error`, so the distributor sees why the user has no deposit address.
 */
export interface WalletView {
  id: string;
  distributorId: string;
  userId: string;
  status: 'active' | 'provisioning_failed';
  depositAddress: string | null;
  chain: string | null;
  currency: typeof USDC;
  balance: number;
  availableBalance: number;
  pendingHolds: number;
  complianceHold: { reason: string; since: string } | null;
  error: { code: 'create_wallet_error'; message: string } | null;
  createdAt: string;
  updatedAt: string;
  [field: string]: unknown;
}

/** The wallet record of the API (without internal fields). */
export function renderWallet(view: WalletView): Omit<WalletView, 'distributorId'> {
  const { distributorId: _distributorId, ...rendered } = view;
  return rendered;
}
