import { isDeepStrictEqual } from 'node:util';
import { Decider, DomainError } from '@cip/shared/contracts';
import type {
  ApplyUserStatus,
  CardCommand,
  CardRevealCommand,
  CardStatusCommand,
  CreateCard,
  RecordFulfilmentOrder,
  RecordShipment,
  EraseShippingAddress,
  ReissueCard,
  RetireReplacedCard,
  UpdateSpendingControls,
} from './card.commands';
import {
  parseSpendingControls,
  PROGRAM_DEFAULT_SPENDING_CONTROLS,
  type SpendingControls,
  type SpendingControlsUpdate,
} from './spending-controls';
import { CardEvent, cardEvents, CardShippingEvent, CardStatusChanged } from './card.events';
import type { CardBlock, CardStatus, CardType } from './card.types';
import {
  REQUESTED_SHIPPING_METHOD,
  REVOKING_REISSUE_REASONS,
  type CardDeliveryType,
  type CardReissueReason,
  type CardShipment,
  type CardTier,
  type ShippingAddress,
} from './card-shipping';
import {
  CardHoldsState,
  decideCardOperation,
  evolveVerification,
  frozenByAfter,
  NO_HOLDS_STATE,
} from './card.holds';

// ---------------------------------------------------------------------------------------------------
// State
// ---------------------------------------------------------------------------------------------------

export interface CardRecord extends CardHoldsState {
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
  /** Physical cards only (null for virtual ones): what is printed, where it ships, how far it got. */
  tier: CardTier | null;
  deliveryType: CardDeliveryType | null;
  shippingAddress: ShippingAddress | null;
  shipment: CardShipment | null;
  /** The card this one replaces, and the card replacing this one (a reissue). */
  replacesCardId: string | null;
  replacedBy: string | null;
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

/** Virtual cards can spend at once; physical ones wait for activation, once received (spec part 3). */
const INITIAL_STATUS: Record<CardType, CardStatus> = { virtual: 'active', physical: 'inactive' };

// ---------------------------------------------------------------------------------------------------
// Decide
// ---------------------------------------------------------------------------------------------------

function createCard({ data }: CreateCard, state: CardState): CardEvent[] {
  if (isCard(state)) throw new DomainError('invalid_state_transition', `Card ${data.cardId} already exists`);
  if ((data.type === 'physical') !== (data.physical !== undefined)) {
    throw new DomainError(
      'validation_error',
      data.type === 'physical'
        ? 'A physical card needs a tier, a delivery type and a shipping address'
        : 'tier, deliveryType and address are for physical cards only',
    );
  }
  const spendingControls =
    data.spendingControls === undefined ? undefined : parseInitialSpendingControls(data.spendingControls);
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
        ...data.physical,
        ...(spendingControls ? { spendingControls } : {}),
        ...(data.replacesCardId ? { replacesCardId: data.replacesCardId } : {}),
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
  if (command.type === 'ActivateCard' && state.shipment && state.shipment.status !== 'shipped') {
    throw new DomainError(
      'invalid_state_transition',
      `Card ${state.cardId} has not been shipped yet: a physical card is activated once its user received it`,
    );
  }
  if (command.type === 'ActivateCard' && state.blocks.length > 0) {
    // A hold placed before activation: the card may not start spending until it is lifted.
    throw new DomainError(
      'invalid_state_transition',
      `Card ${state.cardId} cannot be activated while blocked: ${state.blocks.join(', ')}`,
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

/**
 * The controls a card is created with, validated as `PUT .../spending-controls` validates them, the
 * failing fields named under `spendingControls.` as the create request has them.
 */
export function parseInitialSpendingControls(update: SpendingControlsUpdate): SpendingControls {
  try {
    return parseSpendingControls(update);
  } catch (error) {
    if (!(error instanceof DomainError) || !error.details) throw error;
    const details = error.details.map((detail) => ({ ...detail, field: `spendingControls.${detail.field}` }));
    throw new DomainError(error.code, error.message, details);
  }
}

// Physical cards and reissues ----------------------------------------------------------------------

/** A physical card of the stream, or the refusal of a shipping command on anything else. */
function physicalCard(state: CardState): CardRecord & { shipment: CardShipment } {
  if (!isCard(state)) throw new DomainError('not_found', 'Card was not found');
  if (!state.shipment) {
    throw new DomainError('invalid_state_transition', `Card ${state.cardId} is virtual: it is never shipped`);
  }
  return state as CardRecord & { shipment: CardShipment };
}

/** Accepted once; a card revoked before its order went out is never ordered (the saga skips it too). */
function recordFulfilmentOrder({ data }: RecordFulfilmentOrder, state: CardState): CardEvent[] {
  const card = physicalCard(state);
  if (card.shipment.status !== 'pending' || card.status === 'revoked') return [];
  const { provider, orderId, now: at } = data;
  return [{ type: 'CardFulfilmentOrdered', data: { cardId: card.cardId, provider, orderId, at } }];
}

/**
 * The provider's shipping notice: the first one ships the card (`CardShipped`, then its tracking number),
 * a later one with another tracking number or method updates it, the same notice again changes nothing.
 */
function recordShipment({ data }: RecordShipment, state: CardState): CardEvent[] {
  const card = physicalCard(state);
  const { cardId, shipment } = card;
  if (card.status === 'revoked') {
    throw new DomainError('invalid_state_transition', `Card ${cardId} is revoked: it is not shipped`);
  }
  if (shipment.status === 'pending') {
    throw new DomainError(
      'invalid_state_transition',
      `Card ${cardId} has not been ordered from the fulfilment provider yet: try again in a moment`,
    );
  }
  const actualShippingMethod =
    data.shippingMethod ?? shipment.actualShippingMethod ?? shipment.requestedShippingMethod;
  const at = data.now;
  const tracking: CardEvent = {
    type: 'CardTrackingNumberUpdated',
    data: {
      cardId,
      trackingNumber: data.trackingNumber,
      requestedShippingMethod: shipment.requestedShippingMethod,
      actualShippingMethod,
      at,
    },
  };
  if (shipment.status === 'submitted') {
    return [{ type: 'CardShipped', data: { cardId, actualShippingMethod, at } }, tracking];
  }
  const unchanged =
    shipment.trackingNumber === data.trackingNumber && shipment.actualShippingMethod === actualShippingMethod;
  return unchanged ? [] : [tracking];
}

/**
 * Names the card's replacement (once: a card replaced already keeps its first replacement, so a retried
 * reissue answers the same new card) and revokes a lost or stolen card at once, even when an earlier
 * reissue for damage left it working. A revoked card that was never replaced cannot be reissued.
 */
function reissueCard({ data }: ReissueCard, state: CardState): CardEvent[] {
  if (!isCard(state)) throw new DomainError('not_found', 'Card was not found');
  const { cardId } = state;
  const replacedBy = state.replacedBy ?? data.newCardId;
  const revoke = REVOKING_REISSUE_REASONS.includes(data.reason) && state.status !== 'revoked';
  const revoked: CardEvent[] = revoke
    ? [
        {
          type: 'CardRevoked',
          data: {
            cardId,
            previousStatus: state.status,
            reason: reissueReason(data.reason, replacedBy),
            at: data.now,
          },
        },
      ]
    : [];
  if (state.replacedBy) return revoked;
  if (state.status === 'revoked') {
    throw new DomainError('invalid_state_transition', `Card ${cardId} is revoked and cannot be reissued`);
  }
  return [
    { type: 'CardReplaced', data: { cardId, replacedBy, reason: data.reason, at: data.now } },
    ...revoked,
  ];
}

const reissueReason = (reason: CardReissueReason, replacedBy: string) =>
  `Card ${reason}: reissued as ${replacedBy}`;

/** The replacement is active: the card it replaces stops now (once, whatever happened to it since). */
function retireReplacedCard({ data }: RetireReplacedCard, state: CardState): CardEvent[] {
  if (!isCard(state)) throw new DomainError('not_found', 'Card was not found');
  if (
    state.status === 'revoked' ||
    state.appliedCauses.includes(data.cause) ||
    state.replacedBy !== data.replacedBy
  ) {
    return [];
  }
  return [
    {
      type: 'CardRevoked',
      data: {
        cardId: state.cardId,
        previousStatus: state.status,
        reason: `Replaced by ${data.replacedBy}, now active`,
        cause: data.cause,
        at: data.now,
      },
    },
  ];
}

/** A physical card's address goes with its user's erasure (once per erasure; virtual cards have none). */
function eraseShippingAddress({ data }: EraseShippingAddress, state: CardState): CardEvent[] {
  if (!isCard(state)) throw new DomainError('not_found', 'Card was not found');
  if (state.type !== 'physical' || state.appliedCauses.includes(data.cause)) return [];
  return [
    { type: 'CardShippingAddressErased', data: { cardId: state.cardId, cause: data.cause, at: data.now } },
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
    case 'RecordFulfilmentOrder':
      return recordFulfilmentOrder(command, state);
    case 'RecordShipment':
      return recordShipment(command, state);
    case 'ReissueCard':
      return reissueCard(command, state);
    case 'RetireReplacedCard':
      return retireReplacedCard(command, state);
    case 'EraseShippingAddress':
      return eraseShippingAddress(command, state);
    case 'PlaceHold':
    case 'LiftHold':
    case 'RecordVerification':
    case 'UnblockCard':
      if (!isCard(state)) throw new DomainError('not_found', 'Card was not found');
      return decideCardOperation(command, state);
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
    case 'CardCreated': {
      const {
        spendingControls,
        tier,
        deliveryType,
        shippingAddress,
        requestedShippingMethod,
        replacesCardId,
        ...created
      } = event.data;
      return {
        ...created,
        updatedAt: event.data.createdAt,
        spendingControls: spendingControls ?? null,
        blocks: [],
        appliedCauses: [],
        tier: tier ?? null,
        deliveryType: deliveryType ?? null,
        // Null as well once the user was erased (the address is sealed with the user's key).
        shippingAddress: shippingAddress ?? null,
        shipment:
          created.type === 'physical'
            ? {
                status: 'pending',
                trackingNumber: null,
                requestedShippingMethod: requestedShippingMethod ?? REQUESTED_SHIPPING_METHOD,
                actualShippingMethod: null,
                shippedAt: null,
              }
            : null,
        replacesCardId: replacesCardId ?? null,
        replacedBy: null,
        ...NO_HOLDS_STATE,
      };
    }
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
          frozenBy: frozenByAfter(event),
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
    case 'CardFulfilmentOrdered':
    case 'CardShipped':
    case 'CardTrackingNumberUpdated':
      return isCard(state) && state.shipment
        ? { ...state, shipment: shipped(state.shipment, event), updatedAt: event.data.at }
        : state;
    case 'CardReplaced':
      return isCard(state)
        ? { ...state, replacedBy: event.data.replacedBy, updatedAt: event.data.at }
        : state;
    case 'CardShippingAddressErased':
      return isCard(state)
        ? withCause({ ...state, shippingAddress: null, updatedAt: event.data.at }, event.data.cause)
        : state;
    case 'CardVerificationFailed':
    case 'CardVerificationPassed':
    case 'CardBlocked':
    case 'CardUnblocked':
      return isCard(state) ? evolveVerification(state, event) : state;
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

/** How far the shipment got after a fulfilment event. */
function shipped(shipment: CardShipment, event: CardShippingEvent): CardShipment {
  switch (event.type) {
    case 'CardFulfilmentOrdered':
      return { ...shipment, status: 'submitted' };
    case 'CardShipped':
      return {
        ...shipment,
        status: 'shipped',
        actualShippingMethod: event.data.actualShippingMethod,
        shippedAt: event.data.at,
      };
    case 'CardTrackingNumberUpdated':
      return {
        ...shipment,
        trackingNumber: event.data.trackingNumber,
        actualShippingMethod: event.data.actualShippingMethod,
      };
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
