import type { USDC } from './money';

export const TRANSACTION_TYPES = ['deposit', 'withdrawal', 'authorization', 'refund', 'fee'] as const;
export type TransactionType = (typeof TRANSACTION_TYPES)[number];
export const TRANSACTION_STATUSES = ['pending', 'completed', 'released', 'rejected'] as const;
export type TransactionStatus = (typeof TRANSACTION_STATUSES)[number];

/** What a movement says about itself (the record without its id, owner and times). */
export interface TransactionFields {
  walletId: string;
  userId: string;
  type: TransactionType;
  status: TransactionStatus;
  /** USDC; for a settled authorization, the settled amount. */
  amount: number;
  currency: typeof USDC;
  /** The id the movement was posted under (hold id, `<hash>:<logIndex>` of a deposit, refund or fee id). */
  reference: string | null;
  /**
   * The card of a card movement (an authorization's hold, a force post, a refund, a fee); null for deposits and
   * withdrawals (and for card movements recorded before the card was kept with them).
   */
  cardId: string | null;
  transactionHash: string | null;
  blockNumber: number | null;
  toAddress: string | null;
  /** Why a withdrawal was rejected. */
  reason: string | null;
}

export interface TransactionRecord extends TransactionFields {
  id: string;
  distributorId: string;
  createdAt: string;
  updatedAt: string;
  [field: string]: unknown;
}

/** The transaction record of the API (without internal fields). */
export function renderTransaction(record: TransactionRecord): Omit<TransactionRecord, 'distributorId'> {
  const { distributorId: _distributorId, ...rendered } = record;
  return rendered;
}
