import { Decider, DomainError } from '@cip/shared/contracts';
import type {
  ActivateToken,
  DeliverActivationCode,
  FollowCard,
  ProvisionManually,
  RequestToken,
  TokenCommand,
} from './token.commands';
import { TokenEvent, tokenEvents } from './token.events';
import {
  PUSH_PROVISIONING_WALLETS,
  type DigitalWalletName,
  type ProvisioningMethod,
  type TokenStatus,
} from './token.types';

// ---------------------------------------------------------------------------------------------------
// State
// ---------------------------------------------------------------------------------------------------

export interface TokenRecord {
  status: TokenStatus;
  tokenId: string;
  distributorId: string;
  cardId: string;
  userId: string;
  digitalWalletName: DigitalWalletName;
  tokenReferenceId: string;
  provisioning: ProvisioningMethod;
  /** Whether the token was ever activated: a resumed token goes back to where it was. */
  activated: boolean;
  createdAt: string;
  updatedAt: string;
}

export type TokenState = { status: 'absent' } | TokenRecord;

export const isToken = (state: TokenState): state is TokenRecord => state.status !== 'absent';

/** A token is issued for, and can be activated on, an active card only. */
const CARD_ACTIVE = 'active';

function cardNotActive(cardId: string, cardStatus: string): DomainError {
  return new DomainError('card_not_active', `Card ${cardId} is ${cardStatus}: its tokens cannot be used`);
}

function existing(state: TokenState): TokenRecord {
  if (!isToken(state)) throw new DomainError('not_found', 'Token was not found');
  return state;
}

// ---------------------------------------------------------------------------------------------------
// Decide
// ---------------------------------------------------------------------------------------------------

function requestToken({ data }: RequestToken, state: TokenState): TokenEvent[] {
  if (isToken(state))
    throw new DomainError('invalid_state_transition', `Token ${data.tokenId} already exists`);
  if (data.cardStatus !== CARD_ACTIVE) throw cardNotActive(data.cardId, data.cardStatus);
  return [
    {
      type: 'TokenRequested',
      data: {
        tokenId: data.tokenId,
        distributorId: data.distributorId,
        cardId: data.cardId,
        userId: data.userId,
        digitalWalletName: data.digitalWalletName,
        tokenReferenceId: data.tokenReferenceId,
        provisioning: data.provisioning,
        deviceId: data.deviceId ?? null,
        walletAccountId: data.walletAccountId ?? null,
        createdAt: data.now,
      },
    },
  ];
}

/**
 * Spec part 6: an activation code goes to the user's e-mail address or phone, for an Apple Pay or Google
 * Pay token waiting for activation. A user without the contact the method needs cannot get one.
 */
function deliverActivationCode({ data }: DeliverActivationCode, state: TokenState): TokenEvent[] {
  const token = existing(state);
  if (!(PUSH_PROVISIONING_WALLETS as readonly string[]).includes(token.digitalWalletName)) {
    throw new DomainError(
      'validation_error',
      `Activation codes are delivered for Apple Pay and Google Pay tokens only, not ${token.digitalWalletName}`,
      [{ field: 'activationMethod', message: `not available for ${token.digitalWalletName}` }],
    );
  }
  if (token.status !== 'pending_activation') {
    throw new DomainError(
      'invalid_state_transition',
      `Token ${token.tokenId} is ${token.status}: no activation code is delivered for it`,
    );
  }
  const contact =
    data.activationMethod === 'email' ? { emailAddress: data.emailAddress } : { phone: data.phone };
  if (!Object.values(contact)[0]) {
    throw new DomainError(
      'activation_method_unavailable',
      `User ${token.userId} has no ${data.activationMethod === 'email' ? 'e-mail address' : 'phone number'} to deliver an activation code to`,
    );
  }
  return [
    {
      type: 'TokenActivationCodeDelivered',
      data: {
        tokenId: token.tokenId,
        cardId: token.cardId,
        userId: token.userId,
        activationMethod: data.activationMethod,
        activationCode: data.activationCode,
        ...contact,
        at: data.now,
      },
    },
  ];
}

/** Activating an active token is accepted and changes nothing (a retried call); a suspended card's is refused. */
function activateToken({ data }: ActivateToken, state: TokenState): TokenEvent[] {
  const token = existing(state);
  if (token.status === 'active') return [];
  if (token.status !== 'pending_activation') {
    throw new DomainError(
      'invalid_state_transition',
      `Token ${token.tokenId} is ${token.status} and cannot be activated`,
    );
  }
  if (data.cardStatus !== CARD_ACTIVE) throw cardNotActive(token.cardId, data.cardStatus);
  return [{ type: 'TokenActivated', data: { tokenId: token.tokenId, cardId: token.cardId, at: data.now } }];
}

/**
 * The token follows its card (issue 11): a revoked card deletes it, a card that is not active (frozen)
 * suspends it, an active card resumes it to where it was. It is decided on the card's status as it is now,
 * not on the event that announced a change, so a redelivered or late event changes nothing.
 */
function followCard({ data }: FollowCard, state: TokenState): TokenEvent[] {
  const token = existing(state);
  const change = {
    tokenId: token.tokenId,
    cardId: token.cardId,
    previousStatus: token.status,
    cardStatus: data.cardStatus,
    at: data.now,
  };
  if (token.status === 'deleted') return [];
  if (data.cardStatus === 'revoked') return [{ type: 'TokenDeleted', data: change }];
  if (data.cardStatus === CARD_ACTIVE) {
    if (token.status !== 'suspended') return [];
    return [
      {
        type: 'TokenResumed',
        data: { ...change, status: token.activated ? 'active' : 'pending_activation' },
      },
    ];
  }
  return token.status === 'suspended' ? [] : [{ type: 'TokenSuspended', data: change }];
}

/** Request, deliver the activation code (when asked), activate: each step decided on the state the last left. */
function provisionManually({ data }: ProvisionManually, state: TokenState): TokenEvent[] {
  const { activation, ...request } = data;
  const events = requestToken({ type: 'RequestToken', data: { ...request, provisioning: 'manual' } }, state);
  const then = (command: TokenCommand) =>
    events.push(...decideToken(command, events.reduce(evolveToken, state)));
  if (activation) then({ type: 'DeliverActivationCode', data: { ...activation, now: data.now } });
  then({ type: 'ActivateToken', data: { cardStatus: data.cardStatus, now: data.now } });
  return events;
}

export function decideToken(command: TokenCommand, state: TokenState): TokenEvent[] {
  switch (command.type) {
    case 'RequestToken':
      return requestToken(command, state);
    case 'DeliverActivationCode':
      return deliverActivationCode(command, state);
    case 'ActivateToken':
      return activateToken(command, state);
    case 'FollowCard':
      return followCard(command, state);
    case 'ProvisionManually':
      return provisionManually(command, state);
    default: {
      const unknown: never = command;
      throw new Error(`Unknown command ${(unknown as TokenCommand).type}`);
    }
  }
}

// ---------------------------------------------------------------------------------------------------
// Evolve
// ---------------------------------------------------------------------------------------------------

export function evolveToken(state: TokenState, event: TokenEvent): TokenState {
  if (event.type === 'TokenRequested') {
    const { deviceId: _deviceId, walletAccountId: _walletAccountId, ...data } = event.data;
    return { ...data, status: 'pending_activation', activated: false, updatedAt: data.createdAt };
  }
  if (!isToken(state)) return state;
  switch (event.type) {
    case 'TokenActivationCodeDelivered':
      return state;
    case 'TokenActivated':
      return { ...state, status: 'active', activated: true, updatedAt: event.data.at };
    case 'TokenSuspended':
      return { ...state, status: 'suspended', updatedAt: event.data.at };
    case 'TokenResumed':
      return { ...state, status: event.data.status, updatedAt: event.data.at };
    case 'TokenDeleted':
      return { ...state, status: 'deleted', updatedAt: event.data.at };
    default: {
      const unknown: never = event;
      return unknown;
    }
  }
}

export const tokenDecider: Decider<TokenCommand, TokenEvent, TokenState> = {
  decide: decideToken,
  evolve: evolveToken,
  initialState: () => ({ status: 'absent' }),
  events: tokenEvents,
};
