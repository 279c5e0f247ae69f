import { Decider, DomainError } from '@cip/shared/contracts';
import { TRANS_STATUS_REASONS, type CardAuthenticationStatus } from '@cip/three-ds/contract';
import type {
  AcceptCardAuthentication,
  CardAuthenticationCommand,
  ChallengeCardholder,
  ExpireCardAuthentication,
  RecordResultNotified,
  RejectCardAuthentication,
} from './card-authentication.commands';
import {
  CardAuthenticationChallenged,
  CardAuthenticationDecided,
  CardAuthenticationEvent,
  cardAuthenticationEvents,
} from './card-authentication.events';

// ---------------------------------------------------------------------------------------------------
// State
// ---------------------------------------------------------------------------------------------------

export type CardAuthenticationRecord = Omit<CardAuthenticationChallenged['data'], 'cardAuthenticationId'> & {
  cardAuthenticationId: string;
  status: CardAuthenticationStatus;
  /** What the RReq carries, once decided. */
  decision: Omit<CardAuthenticationDecided['data'], 'cardAuthenticationId' | 'outcome'> | null;
  notifiedAt: string | null;
  updatedAt: string;
};

export type CardAuthenticationState = { status: 'absent' } | CardAuthenticationRecord;

export const isCardAuthentication = (state: CardAuthenticationState): state is CardAuthenticationRecord =>
  state.status !== 'absent';

function existing(state: CardAuthenticationState): CardAuthenticationRecord {
  if (!isCardAuthentication(state)) throw new DomainError('not_found', 'Card authentication was not found');
  return state;
}

// ---------------------------------------------------------------------------------------------------
// Decide
// ---------------------------------------------------------------------------------------------------

function challenge({ data }: ChallengeCardholder, state: CardAuthenticationState): CardAuthenticationEvent[] {
  if (isCardAuthentication(state)) {
    throw new DomainError(
      'invalid_state_transition',
      `Card authentication ${data.cardAuthenticationId} exists`,
    );
  }
  const { now, ...challenged } = data;
  return [{ type: 'CardAuthenticationChallenged', data: { ...challenged, createdAt: now } }];
}

/**
 * The distributor's answer: only to a pending challenge, before its deadline. A late answer is refused as
 * `card_authentication_expired` (the sweep expires the challenge, fail closed), a second answer as
 * `invalid_state_transition`; neither changes anything.
 */
function answerable(state: CardAuthenticationState, now: string): CardAuthenticationRecord {
  const authentication = existing(state);
  const id = authentication.cardAuthenticationId;
  if (
    authentication.status === 'expired' ||
    (authentication.status === 'pending' && now >= authentication.expiresAt)
  ) {
    throw new DomainError(
      'card_authentication_expired',
      `Card authentication ${id} expired at ${authentication.expiresAt}: it was refused (fail closed)`,
    );
  }
  if (authentication.status !== 'pending') {
    throw new DomainError(
      'invalid_state_transition',
      `Card authentication ${id} was already ${authentication.status}`,
    );
  }
  return authentication;
}

function accept(
  { data }: AcceptCardAuthentication,
  state: CardAuthenticationState,
): CardAuthenticationEvent[] {
  const authentication = answerable(state, data.now);
  return [
    {
      type: 'CardAuthenticationDecided',
      data: {
        cardAuthenticationId: authentication.cardAuthenticationId,
        outcome: 'accepted',
        transStatus: 'Y',
        transStatusReason: null,
        authenticationValue: data.authenticationValue,
        eci: data.eci,
        at: data.now,
      },
    },
  ];
}

function refusal(
  authentication: CardAuthenticationRecord,
  outcome: 'rejected' | 'expired',
  at: string,
): CardAuthenticationEvent {
  return {
    type: 'CardAuthenticationDecided',
    data: {
      cardAuthenticationId: authentication.cardAuthenticationId,
      outcome,
      transStatus: 'N',
      transStatusReason:
        outcome === 'rejected'
          ? TRANS_STATUS_REASONS.cardAuthenticationFailed
          : TRANS_STATUS_REASONS.timedOutAtAcs,
      authenticationValue: null,
      eci: null,
      at,
    },
  };
}

function reject(
  { data }: RejectCardAuthentication,
  state: CardAuthenticationState,
): CardAuthenticationEvent[] {
  return [refusal(answerable(state, data.now), 'rejected', data.now)];
}

/** Idempotent: a challenge already decided, or not yet due, is left as it is. */
function expire(
  { data }: ExpireCardAuthentication,
  state: CardAuthenticationState,
): CardAuthenticationEvent[] {
  const authentication = existing(state);
  if (authentication.status !== 'pending' || data.now < authentication.expiresAt) return [];
  return [refusal(authentication, 'expired', data.now)];
}

/** Once per decided challenge: a second acknowledgement (a redelivered RRes) changes nothing. */
function recordResultNotified(
  { data }: RecordResultNotified,
  state: CardAuthenticationState,
): CardAuthenticationEvent[] {
  const authentication = existing(state);
  if (authentication.status === 'pending') {
    throw new DomainError(
      'invalid_state_transition',
      `Card authentication ${authentication.cardAuthenticationId} is pending: no result was sent`,
    );
  }
  if (authentication.notifiedAt) return [];
  return [
    {
      type: 'CardAuthenticationResultNotified',
      data: {
        cardAuthenticationId: authentication.cardAuthenticationId,
        resultsStatus: data.resultsStatus,
        at: data.now,
      },
    },
  ];
}

export function decideCardAuthentication(
  command: CardAuthenticationCommand,
  state: CardAuthenticationState,
): CardAuthenticationEvent[] {
  switch (command.type) {
    case 'ChallengeCardholder':
      return challenge(command, state);
    case 'AcceptCardAuthentication':
      return accept(command, state);
    case 'RejectCardAuthentication':
      return reject(command, state);
    case 'ExpireCardAuthentication':
      return expire(command, state);
    case 'RecordResultNotified':
      return recordResultNotified(command, state);
    default: {
      const unknown: never = command;
      throw new Error(`Unknown command ${(unknown as CardAuthenticationCommand).type}`);
    }
  }
}

// ---------------------------------------------------------------------------------------------------
// Evolve
// ---------------------------------------------------------------------------------------------------

export function evolveCardAuthentication(
  state: CardAuthenticationState,
  event: CardAuthenticationEvent,
): CardAuthenticationState {
  if (event.type === 'CardAuthenticationChallenged') {
    return {
      ...event.data,
      status: 'pending',
      decision: null,
      notifiedAt: null,
      updatedAt: event.data.createdAt,
    };
  }
  if (!isCardAuthentication(state)) return state;
  switch (event.type) {
    case 'CardAuthenticationDecided': {
      const { cardAuthenticationId: _id, outcome, ...decision } = event.data;
      return { ...state, status: outcome, decision, updatedAt: event.data.at };
    }
    case 'CardAuthenticationResultNotified':
      return { ...state, notifiedAt: event.data.at, updatedAt: event.data.at };
    default: {
      const unknown: never = event;
      return unknown;
    }
  }
}

export const cardAuthenticationDecider: Decider<
  CardAuthenticationCommand,
  CardAuthenticationEvent,
  CardAuthenticationState
> = {
  decide: decideCardAuthentication,
  evolve: evolveCardAuthentication,
  initialState: () => ({ status: 'absent' }),
  events: cardAuthenticationEvents,
};
