import type { AuthorizationStatus, AuthorizationType } from './authorization.types';
import type { AuthorizationEvent } from './authorization.events';
import type { LedgerInstruction } from './authorization.ledger';

// ---------------------------------------------------------------------------------------------------
// State of an authorization, folded from its events. Amounts in minor units of the wallet.
// ---------------------------------------------------------------------------------------------------

export interface AuthorizationRecord {
  status: AuthorizationStatus;
  authorizationId: string;
  walletId: string;
  /** The card it was made with (every movement it posts on the wallet names it). */
  cardId?: string;
  type: AuthorizationType;
  /** What was authorized (without fees). */
  amount: number;
  feeTotal: number;
  /** Fees are charged once, with the first clearing; until then they are held with the payment. */
  feesCharged: boolean;
  cleared: number;
  reversed: number;
  /** The payment still held (the open hold also covers the fees while they are not charged). */
  remaining: number;
  /**
   * The open hold on the wallet, null when nothing is held: the authorization's id (`<id>.<n>` on streams
   * recorded before the ledger had partial operations, which kept the rest of a hold under a new one).
   */
  holdId: string | null;
  clearingAllowance: number;
  expiresAt: string | null;
  /** The hold lapsed (expired) or never existed (a force post): later clearings are force posts. */
  lapsed: boolean;
  /** The network messages applied (a stream sees a handful: decision, clearings, reversals). */
  networkKeys: string[];
  /** A payment: the refunds counted against it (their authorization ids and amounts); absent: none. */
  refunds?: Readonly<Record<string, number>>;
  /** A payment: the sum of `refunds`. */
  refunded?: number;
}

/** A hold placed and no decision recorded in time (`AuthorizationAbandoned`): no authorization, ever. */
export interface AbandonedAuthorization {
  status: 'abandoned';
  authorizationId: string;
  walletId: string;
  holdId: string;
}

export type AuthorizationState = { status: 'absent' } | AbandonedAuthorization | AuthorizationRecord;

export const isAuthorization = (state: AuthorizationState): state is AuthorizationRecord =>
  state.status !== 'absent' && state.status !== 'abandoned';

const chargesFees = (ledger: LedgerInstruction[]) => ledger.some((step) => step.op === 'chargeFee');

export function evolveAuthorization(
  state: AuthorizationState,
  event: AuthorizationEvent,
): AuthorizationState {
  switch (event.type) {
    case 'AuthorizationAbandoned': {
      const { authorizationId, walletId, holdId } = event.data;
      return isAuthorization(state) ? state : { status: 'abandoned', authorizationId, walletId, holdId };
    }
    case 'AuthorizationDecided': {
      const { data } = event;
      const hold = data.ledger.find((step) => step.op === 'placeHold');
      const held = hold !== undefined;
      return {
        status: data.decision === 'rejected' ? 'rejected' : 'confirmed',
        authorizationId: data.authorizationId,
        walletId: data.walletId,
        cardId: data.cardId,
        type: data.type,
        amount: data.amount,
        feeTotal: data.feeTotal,
        feesCharged: false,
        cleared: 0,
        reversed: 0,
        remaining: held ? data.amount : 0,
        holdId: hold?.holdId ?? null,
        clearingAllowance: data.clearingAllowance,
        expiresAt: data.expiresAt,
        lapsed: false,
        networkKeys: [data.networkKey],
      };
    }
    case 'AuthorizationForcePosted': {
      const { data } = event;
      return {
        status: 'confirmed',
        authorizationId: data.authorizationId,
        walletId: data.walletId,
        cardId: data.cardId,
        type: 'payment',
        amount: data.amount,
        feeTotal: data.feeTotal,
        feesCharged: false,
        cleared: 0,
        reversed: 0,
        remaining: 0,
        holdId: null,
        clearingAllowance: 0,
        expiresAt: null,
        lapsed: true,
        networkKeys: [data.networkKey],
      };
    }
    case 'AuthorizationCleared': {
      if (!isAuthorization(state)) return state;
      const { data } = event;
      const next = {
        ...state,
        cleared: data.clearedTotal,
        remaining: data.remaining,
        holdId: data.holdId,
        feesCharged: state.feesCharged || chargesFees(data.ledger),
        networkKeys: [...state.networkKeys, data.networkKey],
      };
      return { ...next, status: data.remaining > 0 ? 'partially_cleared' : 'cleared' };
    }
    case 'AuthorizationReversed': {
      if (!isAuthorization(state)) return state;
      const { data } = event;
      const next = {
        ...state,
        reversed: data.reversedTotal,
        remaining: data.remaining,
        holdId: data.holdId,
        networkKeys: [...state.networkKeys, data.networkKey],
      };
      if (data.remaining > 0) return next;
      return { ...next, status: next.cleared > 0 ? 'cleared' : 'reversed' };
    }
    case 'AuthorizationCreditRefused':
      return isAuthorization(state) ? { ...state, status: 'rejected' } : state;
    case 'AuthorizationRefundReserved':
    case 'AuthorizationRefundReleased': {
      if (!isAuthorization(state)) return state;
      const { refundAuthorizationId, amount, refundedTotal } = event.data;
      const refunds = { ...state.refunds };
      if (event.type === 'AuthorizationRefundReserved') refunds[refundAuthorizationId] = amount;
      else delete refunds[refundAuthorizationId];
      return { ...state, refunds, refunded: refundedTotal };
    }
    case 'AuthorizationExpired': {
      if (!isAuthorization(state)) return state;
      // What cleared before the rest lapsed stays final: the authorization is `cleared`, not `expired`.
      return {
        ...state,
        remaining: 0,
        holdId: null,
        lapsed: true,
        status: state.cleared > 0 ? 'cleared' : 'expired',
      };
    }
    default: {
      const unknown: never = event;
      throw new Error(`Unknown authorization event ${(unknown as { type: string }).type}`);
    }
  }
}
