import type { AuthorizationView } from '@cip/authorizations/contract';
import type { CardView } from '@cip/cards/contract';
import type { KycView } from '@cip/kyc/contract';
import type { UserView } from '@cip/users/contract';
import type { TransactionRecord, WalletView } from '@cip/wallets/contract';

// ---------------------------------------------------------------------------------------------------
// What the environment pages answer (docs/operator-api.md, "Environment pages"). Records are the /v1
// records plus `distributorId` (an operator sees every distributor): money as /v1 renders it, never a PAN
// or CVV (cards show the masked PAN and the last four digits only).
// ---------------------------------------------------------------------------------------------------

/** A page of an operator list. */
export interface OperatorPage<T> {
  data: T[];
  nextCursor: string | null;
}

export interface SearchResult {
  users: UserView[];
  cards: CardView[];
  transactions: TransactionItem[];
}

/** A wallet as the user page shows it: its figures named as the page names them. */
export interface WalletSummary {
  id: string;
  status: WalletView['status'];
  currency: string;
  balance: number;
  held: number;
  available: number;
  complianceHold: WalletView['complianceHold'];
  depositAddress: string | null;
}

export interface UserDetail {
  user: UserView;
  distributor: { id: string; name: string };
  kycs: KycView[];
  wallet: WalletSummary | null;
  /** Open authorization holds (authorizations still holding money). */
  holds: AuthorizationView[];
  cards: CardView[];
  /** The latest authorizations and wallet transactions, newest first. */
  authorizations: AuthorizationView[];
  transactions: TransactionRecord[];
}

export interface CardDetail {
  card: CardView;
  user: UserView | null;
  authorizations: AuthorizationView[];
}

/** Card authorizations, and the wallet's own movements (`deposit`, `withdrawal`, `refund`, `fee`). */
export const TRANSACTION_KINDS = ['authorization', 'deposit', 'withdrawal', 'refund', 'fee'] as const;
export type TransactionKind = (typeof TRANSACTION_KINDS)[number];

/** One line of the transactions page: an authorization or a wallet transaction. */
export type TransactionItem =
  | { kind: 'authorization'; id: string; createdAt: string; authorization: AuthorizationView }
  | {
      kind: Exclude<TransactionKind, 'authorization'>;
      id: string;
      createdAt: string;
      transaction: TransactionRecord;
    };

export interface TransactionFilter {
  distributorId?: string;
  userId?: string;
  cardId?: string;
  kind?: TransactionKind;
  status?: string;
  /** ISO 8601 bounds of `createdAt`, inclusive. */
  from?: string;
  to?: string;
}
