import { isDeepStrictEqual } from 'node:util';
import { Decider, DomainError } from '@cip/shared/contracts';
import type {
  ApplyUserStatus,
  CardCommand,
  CardRevealCommand,
  CardStatusCommand,
  CreateCard,
  UpdateSpendingControls,
} from './card.commands';
import {
  parseSpendingControls,
  PROGRAM_DEFAULT_SPENDING_CONTROLS,
  type SpendingControls,
} from './spending-controls';
import { CardEvent, cardEvents, CardStatusChanged } from './card.events';
import type { CardBlock, CardStatus, CardType } from './card.types';

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
  /** Null until the distributor sets them: the card then has the program's defaults. */
  spendingControls: SpendingControls | null;
  /** What keeps the card from being unfrozen by its distributor (empty: nothing). */
  blocks: CardBlock[];
  /** The causes of saga-made changes already applied (a redelivered event changes nothing). */
  appliedCauses: string[];
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
  if (command.type === 'UnfreezeCard' && state.status === 'frozen' && state.blocks.length > 0) {
    throw new DomainError(
      'card_unfreeze_blocked_error',
      `Card ${state.cardId} cannot be unfrozen due to additional blocks: ${state.blocks.join(', ')}`,
    );
  }
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

/**
 * The card follows its user (issue 11, spec part 3): a frozen user freezes the card and blocks its unfreeze
 * (on a card frozen already, only the block is placed); a disabled, revoked or deleted user revokes it, as
 * none of those statuses ever spends again. A reactivated user lifts the block but unfreezes nothing: the
 * card was frozen for a reason its distributor may still hold, so the distributor unfreezes it.
 */
function applyUserStatus({ data }: ApplyUserStatus, state: CardState): CardEvent[] {
  if (!isCard(state)) throw new DomainError('not_found', 'Card was not found');
  if (state.appliedCauses.includes(data.cause) || state.status === 'revoked') return [];
  const { cardId } = state;
  const { reason, cause, now: at } = data;
  const blocked = state.blocks.includes('user_frozen');
  switch (data.userStatus) {
    case 'active':
      return blocked ? [{ type: 'CardBlockLifted', data: { cardId, block: 'user_frozen', cause, at } }] : [];
    case 'frozen':
      if (state.status === 'frozen') {
        return blocked
          ? []
          : [{ type: 'CardBlockPlaced', data: { cardId, block: 'user_frozen', reason, cause, at } }];
      }
      return [
        {
          type: 'CardFrozen',
          data: { cardId, previousStatus: state.status, block: 'user_frozen', reason, cause, at },
        },
      ];
    default:
      return [{ type: 'CardRevoked', data: { cardId, previousStatus: state.status, reason, cause, at } }];
  }
}

/** The controls a card has: its own, or the program's defaults. */
export const spendingControlsOf = (card: CardRecord): SpendingControls =>
  card.spendingControls ?? PROGRAM_DEFAULT_SPENDING_CONTROLS;

/** The update replaces the controls whole; the controls the card already has change nothing (a retry). */
function updateSpendingControls({ data }: UpdateSpendingControls, state: CardState): CardEvent[] {
  if (!isCard(state)) throw new DomainError('not_found', 'Card was not found');
  const spendingControls = parseSpendingControls(data.update);
  if (state.status === 'revoked') {
    throw new DomainError(
      'invalid_state_transition',
      `Card ${state.cardId} is revoked: its spending controls cannot change`,
    );
  }
  if (state.spendingControls && isDeepStrictEqual(spendingControls, state.spendingControls)) return [];
  return [
    { type: 'CardSpendingControlsUpdated', data: { cardId: state.cardId, spendingControls, at: data.now } },
  ];
}

/** A card's PAN and CVV2 may be shown until it is revoked (a frozen card's holder may still need them). */
function reveal(command: CardRevealCommand, state: CardState): CardEvent[] {
  if (!isCard(state)) throw new DomainError('not_found', 'Card was not found');
  if (state.status === 'revoked') {
    throw new DomainError(
      'invalid_state_transition',
      `Card ${state.cardId} is revoked: its details cannot be revealed`,
    );
  }
  const { cardId } = state;
  const at = command.data.now;
  return command.type === 'IssueRevealLink'
    ? [{ type: 'CardRevealLinkIssued', data: { cardId, expiresAt: command.data.expiresAt, at } }]
    : [{ type: 'CardDetailsRevealed', data: { cardId, linkRequestId: command.data.linkRequestId, at } }];
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
    case 'ApplyUserStatus':
      return applyUserStatus(command, state);
    case 'UpdateSpendingControls':
      return updateSpendingControls(command, state);
    case 'IssueRevealLink':
    case 'RecordCardReveal':
      return reveal(command, state);
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
      return {
        ...event.data,
        updatedAt: event.data.createdAt,
        spendingControls: null,
        blocks: [],
        appliedCauses: [],
      };
    case 'CardSpendingControlsUpdated':
      return isCard(state)
        ? { ...state, spendingControls: event.data.spendingControls, updatedAt: event.data.at }
        : state;
    case 'CardActivated':
    case 'CardFrozen':
    case 'CardUnfrozen':
    case 'CardRevoked':
      if (!isCard(state)) return state;
      return withCause(
        {
          ...state,
          status: STATUS_OF_EVENT[event.type],
          blocks:
            event.type === 'CardFrozen' && event.data.block
              ? withBlock(state.blocks, event.data.block)
              : state.blocks,
          updatedAt: event.data.at,
        },
        event.data.cause,
      );
    case 'CardBlockPlaced':
      return isCard(state)
        ? withCause(
            { ...state, blocks: withBlock(state.blocks, event.data.block), updatedAt: event.data.at },
            event.data.cause,
          )
        : state;
    case 'CardBlockLifted':
      return isCard(state)
        ? withCause(
            {
              ...state,
              blocks: state.blocks.filter((block) => block !== event.data.block),
              updatedAt: event.data.at,
            },
            event.data.cause,
          )
        : state;
    // Audit only: the card is as it was (its updatedAt included).
    case 'CardRevealLinkIssued':
    case 'CardDetailsRevealed':
      return state;
    default: {
      const unknown: never = event;
      return unknown;
    }
  }
}

const withBlock = (blocks: CardBlock[], block: CardBlock): CardBlock[] =>
  blocks.includes(block) ? blocks : [...blocks, block];

const withCause = (card: CardRecord, cause: string | undefined): CardRecord =>
  cause === undefined ? card : { ...card, appliedCauses: [...card.appliedCauses, cause] };

export const cardDecider: Decider<CardCommand, CardEvent, CardState> = {
  decide: decideCard,
  evolve: evolveCard,
  initialState: () => ({ status: 'absent' }),
  events: cardEvents,
};
