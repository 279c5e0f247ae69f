import type { Phone } from '@cip/users/contract';
import type { ActivationMethod, DigitalWalletName, ProvisioningMethod } from './token.types';

// ---------------------------------------------------------------------------------------------------
// Commands of the token decider. Time (`now`), ids, codes and the card's current status arrive in the
// command (the card is read through the cards contract by the service).
// ---------------------------------------------------------------------------------------------------

export interface RequestToken {
  type: 'RequestToken';
  data: {
    tokenId: string;
    distributorId: string;
    cardId: string;
    userId: string;
    cardStatus: string;
    digitalWalletName: DigitalWalletName;
    tokenReferenceId: string;
    provisioning: ProvisioningMethod;
    deviceId?: string;
    walletAccountId?: string;
    now: string;
  };
}

export interface DeliverActivationCode {
  type: 'DeliverActivationCode';
  data: {
    activationMethod: ActivationMethod;
    activationCode: string;
    /** The user's contact for the method (null: the user has none, refused). */
    emailAddress?: string | null;
    phone?: Phone | null;
    now: string;
  };
}

export interface ActivateToken {
  type: 'ActivateToken';
  data: { cardStatus: string; now: string };
}

/** The card's status as it is now: the token is suspended, resumed or deleted to match it. */
export interface FollowCard {
  type: 'FollowCard';
  data: { cardStatus: string; now: string };
}

/**
 * The token service's manual path (a user types the card's details into the wallet), as one atomic step:
 * the token, its activation code when the wallet asked for one, its activation. Either all of it is
 * recorded or none (a refused activation code leaves no token behind).
 */
export interface ProvisionManually {
  type: 'ProvisionManually';
  data: Omit<RequestToken['data'], 'provisioning' | 'deviceId' | 'walletAccountId'> & {
    activation: Omit<DeliverActivationCode['data'], 'now'> | null;
  };
}

export type TokenCommand =
  RequestToken | DeliverActivationCode | ActivateToken | FollowCard | ProvisionManually;
