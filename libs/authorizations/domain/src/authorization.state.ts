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
  /** The open hold on the wallet, null when nothing is held. */
  holdId: string | null;
  /** Holds placed so far: the next one is `holdIdOf(authorizationId, holdsPlaced)`. */
  holdsPlaced: number;
  clearingAllowance: number;
  expiresAt: string | null;
  /** The hold lapsed (expired) or never existed (a force post): later clearings debit with a forced hold. */
  lapsed: boolean;
  /** The network messages applied (a stream sees a handful: decision, clearings, reversals). */
  networkKeys: string[];
}

export type AuthorizationState = { status: 'absent' } | AuthorizationRecord;

export const isAuthorization = (state: AuthorizationState): state is AuthorizationRecord =>
  state.status !== 'absent';

const holdsIn = (ledger: LedgerInstruction[]) => ledger.filter((step) => step.op === 'placeHold').length;
const chargesFees = (ledger: LedgerInstruction[]) => ledger.some((step) => step.op === 'chargeFee');

export function evolveAuthorization(
  state: AuthorizationState,
  event: AuthorizationEvent,
): AuthorizationState {
  switch (event.type) {
    case 'AuthorizationDecided': {
      const { data } = event;
      const held = data.ledger.some((step) => step.op === 'placeHold');
      return {
        status: data.decision === 'rejected' ? 'rejected' : 'confirmed',
        authorizationId: data.authorizationId,
        walletId: data.walletId,
        type: data.type,
        amount: data.amount,
        feeTotal: data.feeTotal,
        feesCharged: false,
        cleared: 0,
        reversed: 0,
        remaining: held ? data.amount : 0,
        holdId: held ? data.authorizationId : null,
        holdsPlaced: holdsIn(data.ledger),
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
        type: 'payment',
        amount: data.amount,
        feeTotal: data.feeTotal,
        feesCharged: false,
        cleared: 0,
        reversed: 0,
        remaining: 0,
        holdId: null,
        holdsPlaced: 0,
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
        holdsPlaced: state.holdsPlaced + holdsIn(data.ledger),
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
        holdsPlaced: state.holdsPlaced + holdsIn(data.ledger),
        networkKeys: [...state.networkKeys, data.networkKey],
      };
      if (data.remaining > 0) return next;
      return { ...next, status: next.cleared > 0 ? 'cleared' : 'reversed' };
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
