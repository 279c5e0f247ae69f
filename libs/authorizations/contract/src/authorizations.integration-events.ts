import { IntegrationEvent, integrationEvent } from '@cip/shared/contracts';
import type {
  AuthorizationDecision,
  AuthorizationType,
  DeclineDetail,
  DeclineReasonCode,
  Fee,
  Merchant,
} from './authorization.types';

// ---------------------------------------------------------------------------------------------------
// The events other contexts may react to (nothing publishes them yet: the context is not registered).
// Amounts are integers of the platform's minor units (10^-6 USD: 1 USDC settles 1 USD), as on the ledger;
// `merchantAmount` is the spec's decimal string in `merchantCurrency`. The domain's events carry these
// fields (and more); `libs/authorizations/domain/src/authorization.events.ts` asserts they still match.
// ---------------------------------------------------------------------------------------------------

/** Stream category of authorizations (`aut-<uuid>`): the topic their events are published on. */
export const AUTHORIZATIONS_TOPIC = 'aut';

/** A payment or refund decided (or an advice recorded): who, where, how much, and the answer. */
export type AuthorizationDecidedEvent = IntegrationEvent<
  'AuthorizationDecided',
  {
    authorizationId: string;
    cardId: string;
    userId: string;
    walletId: string;
    type: AuthorizationType;
    decision: AuthorizationDecision;
    declineReasonCode?: DeclineReasonCode;
    /** A decline's finer cause (`currency_not_supported`). */
    declineDetail?: DeclineDetail;
    merchant: Merchant;
    amount: number;
    merchantAmount: string;
    merchantCurrency: string;
    fee: Fee;
    decidedAt: string;
  }
>;

/** Some of an authorization cleared: `amount` this time, `clearedTotal` so far, `remaining` still held. */
export type AuthorizationClearedEvent = IntegrationEvent<
  'AuthorizationCleared',
  { authorizationId: string; amount: number; clearedTotal: number; remaining: number; at: string }
>;

/** Some or all of the hold released by the merchant or the network. */
export type AuthorizationReversedEvent = IntegrationEvent<
  'AuthorizationReversed',
  { authorizationId: string; amount: number; reversedTotal: number; remaining: number; at: string }
>;

/** The uncleared rest of the hold lapsed after the program's window. */
export type AuthorizationExpiredEvent = IntegrationEvent<
  'AuthorizationExpired',
  { authorizationId: string; amount: number; at: string }
>;

export const authorizationDecided = integrationEvent<AuthorizationDecidedEvent>(
  AUTHORIZATIONS_TOPIC,
  'AuthorizationDecided',
);
export const authorizationCleared = integrationEvent<AuthorizationClearedEvent>(
  AUTHORIZATIONS_TOPIC,
  'AuthorizationCleared',
);
export const authorizationReversed = integrationEvent<AuthorizationReversedEvent>(
  AUTHORIZATIONS_TOPIC,
  'AuthorizationReversed',
);
export const authorizationExpired = integrationEvent<AuthorizationExpiredEvent>(
  AUTHORIZATIONS_TOPIC,
  'AuthorizationExpired',
);
