import type { CardType } from './card.types';

// ---------------------------------------------------------------------------------------------------
// Commands of the card decider. Time (`now`), ids and what the vault issued arrive in the command.
// ---------------------------------------------------------------------------------------------------

export interface CreateCard {
  type: 'CreateCard';
  data: {
    cardId: string;
    distributorId: string;
    userId: string;
    walletId: string;
    type: CardType;
    /** What the card vault issued: its reference and the card's printed data, never the PAN. */
    issued: { vaultRef: string; bin: string; last4: string; expMonth: number; expYear: number };
    now: string;
  };
}

export interface ActivateCard {
  type: 'ActivateCard';
  data: { now: string };
}

export interface FreezeCard {
  type: 'FreezeCard';
  data: { now: string };
}

export interface UnfreezeCard {
  type: 'UnfreezeCard';
  data: { now: string };
}

export interface RevokeCard {
  type: 'RevokeCard';
  data: { now: string };
}

export type CardStatusCommand = ActivateCard | FreezeCard | UnfreezeCard | RevokeCard;

export type CardCommand = CreateCard | CardStatusCommand;
