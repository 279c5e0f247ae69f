import { domainEventReader, type DomainEvent, type PersonalDataPolicy } from '@cip/shared/contracts';
import type { TokenRequestedEvent } from '@cip/tokenization/contract';
import type { Phone } from '@cip/users/contract';
import type { ActivationMethod, DigitalWalletName, ProvisioningMethod, TokenStatus } from './token.types';

// ---------------------------------------------------------------------------------------------------
// Domain events of a token stream (`tkn-<uuid>`). Nothing of the card number: the card id and the token
// service's reference only. The contact details an activation code went to are personal data (sealed).
// ---------------------------------------------------------------------------------------------------

export type TokenRequested = DomainEvent<
  'TokenRequested',
  {
    tokenId: string;
    distributorId: string;
    cardId: string;
    userId: string;
    digitalWalletName: DigitalWalletName;
    tokenReferenceId: string;
    provisioning: ProvisioningMethod;
    /** Google Pay push provisioning only (null otherwise): the wallet the card was pushed to. */
    deviceId: string | null;
    walletAccountId: string | null;
    createdAt: string;
  }
>;

/** The token service made an activation code, for the distributor to deliver to the user. */
export type TokenActivationCodeDelivered = DomainEvent<
  'TokenActivationCodeDelivered',
  {
    tokenId: string;
    cardId: string;
    userId: string;
    activationMethod: ActivationMethod;
    activationCode: string;
    /** `email` only; null once the user was erased. */
    emailAddress?: string | null;
    /** `sms` only; null once the user was erased. */
    phone?: Phone | null;
    at: string;
  }
>;

export type TokenActivated = DomainEvent<'TokenActivated', { tokenId: string; cardId: string; at: string }>;

/**
 * The token follows its card: suspended while the card is not active, resumed (to where it was) when the
 * card is active again, deleted when the card is revoked. `cardStatus` is the card's status that caused it.
 */
type CardFollowed<Type extends string, Extra = object> = DomainEvent<
  Type,
  { tokenId: string; cardId: string; previousStatus: TokenStatus; cardStatus: string; at: string } & Extra
>;

export type TokenSuspended = CardFollowed<'TokenSuspended'>;
export type TokenResumed = CardFollowed<'TokenResumed', { status: 'pending_activation' | 'active' }>;
export type TokenDeleted = CardFollowed<'TokenDeleted'>;

export type TokenEvent =
  | TokenRequested
  | TokenActivationCodeDelivered
  | TokenActivated
  | TokenSuspended
  | TokenResumed
  | TokenDeleted;

/** The contract publishes `TokenRequested` (`tokenRequested`): its data must keep what the contract says. */
export const TOKEN_REQUESTED_MATCHES_THE_CONTRACT: TokenRequested['data'] extends TokenRequestedEvent['data']
  ? true
  : never = true;

/** How token streams are read (no upcaster yet: every token event is still in its first shape). */
export const tokenEvents = domainEventReader<TokenEvent>();

/**
 * The personal data of token events, the user's own (ARCHITECTURE.md, "Personal data"): the contact an
 * activation code went to, and the device and wallet account a card was pushed to.
 */
export const tokenPersonalData: PersonalDataPolicy = {
  TokenRequested: { subject: 'userId', fields: ['deviceId', 'walletAccountId'] },
  TokenActivationCodeDelivered: { subject: 'userId', fields: ['emailAddress', 'phone'] },
};
