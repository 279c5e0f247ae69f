import { Decider, DomainError } from '@cip/shared/contracts';
import type { CardCommand, CardStatusCommand, CreateCard } from './card.commands';
import { CardEvent, cardEvents, CardStatusChanged } from './card.events';
import type { CardStatus, CardType } from './card.types';

// ---------------------------------------------------------------------------------------------------
// State
// ---------------------------------------------------------------------------------------------------

export interface CardRecord {
  status: CardStatus;
  cardId: string;
  distributorId: string;
  userId: string;
  walletId: string;
  type: CardType;
  vaultRef: string;
  bin: string;
  last4: string;
  expMonth: number;
  expYear: number;
  createdAt: string;
  updatedAt: string;
}

export type CardState = { status: 'absent' } | CardRecord;

export const isCard = (state: CardState): state is CardRecord => state.status !== 'absent';

/**
 * Each status command: the statuses it may start from, the status it leads to and its event (spec part
 * 3). Revoked is terminal. Asking for the status the card already has is accepted and changes nothing,
 * so a retried call is harmless; anything else is an `invalid_state_transition`.
 */
const TRANSITIONS: Record<
  CardStatusCommand['type'],
  { from: readonly CardStatus[]; to: CardStatus; event: CardStatusChanged['type']; verb: string }
> = {
  ActivateCard: { from: ['inactive'], to: 'active', event: 'CardActivated', verb: 'activated' },
  FreezeCard: { from: ['active'], to: 'frozen', event: 'CardFrozen', verb: 'frozen' },
  UnfreezeCard: { from: ['frozen'], to: 'active', event: 'CardUnfrozen', verb: 'unfrozen' },
  RevokeCard: {
    from: ['inactive', 'active', 'frozen'],
    to: 'revoked',
    event: 'CardRevoked',
    verb: 'revoked',
  },
};

const STATUS_OF_EVENT = Object.fromEntries(
  Object.values(TRANSITIONS).map(({ event, to }) => [event, to]),
) as Record<CardStatusChanged['type'], CardStatus>;

/** Virtual cards can spend at once; physical ones (not built yet) will wait for activation. */
const INITIAL_STATUS: Record<CardType, CardStatus> = { virtual: 'active' };

// ---------------------------------------------------------------------------------------------------
// Decide
// ---------------------------------------------------------------------------------------------------

function createCard({ data }: CreateCard, state: CardState): CardEvent[] {
  if (isCard(state)) throw new DomainError('invalid_state_transition', `Card ${data.cardId} already exists`);
  return [
    {
      type: 'CardCreated',
      data: {
        cardId: data.cardId,
        distributorId: data.distributorId,
        userId: data.userId,
        walletId: data.walletId,
        type: data.type,
        status: INITIAL_STATUS[data.type],
        ...data.issued,
        createdAt: data.now,
      },
    },
  ];
}

function changeStatus(command: CardStatusCommand, state: CardState): CardEvent[] {
  if (!isCard(state)) throw new DomainError('not_found', 'Card was not found');
  const transition = TRANSITIONS[command.type];
  if (state.status === transition.to) return [];
  if (!transition.from.includes(state.status)) {
    throw new DomainError(
      'invalid_state_transition',
      `Card ${state.cardId} is ${state.status} and cannot be ${transition.verb}`,
    );
  }
  return [
    {
      type: transition.event,
      data: { cardId: state.cardId, previousStatus: state.status, at: command.data.now },
    },
  ];
}

export function decideCard(command: CardCommand, state: CardState): CardEvent[] {
  switch (command.type) {
    case 'CreateCard':
      return createCard(command, state);
    case 'ActivateCard':
    case 'FreezeCard':
    case 'UnfreezeCard':
    case 'RevokeCard':
      return changeStatus(command, state);
    default: {
      const unknown: never = command;
      throw new Error(`Unknown command ${(unknown as CardCommand).type}`);
    }
  }
}

// ---------------------------------------------------------------------------------------------------
// Evolve
// ---------------------------------------------------------------------------------------------------

export function evolveCard(state: CardState, event: CardEvent): CardState {
  switch (event.type) {
    case 'CardCreated':
      return { ...event.data, updatedAt: event.data.createdAt };
    case 'CardActivated':
    case 'CardFrozen':
    case 'CardUnfrozen':
    case 'CardRevoked':
      return isCard(state)
        ? { ...state, status: STATUS_OF_EVENT[event.type], updatedAt: event.data.at }
        : state;
    default: {
      const unknown: never = event;
      return unknown;
    }
  }
}

export const cardDecider: Decider<CardCommand, CardEvent, CardState> = {
  decide: decideCard,
  evolve: evolveCard,
  initialState: () => ({ status: 'absent' }),
  events: cardEvents,
};
