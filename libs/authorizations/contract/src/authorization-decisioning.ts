import { Caller, defineContext } from '@cip/shared/contracts';
import type { AuthorizationType, Fee, Merchant } from './authorization.types';

// ---------------------------------------------------------------------------------------------------
// Real-time authorization decisioning (beyond the spec, as Stripe Issuing, Lithic ASA and Marqeta JIT
// offer): once the platform's own checks pass, the distributor's endpoint approves or declines the payment
// within `timeoutMs`; a timeout or an unusable answer applies `onTimeout`. One configuration per distributor
// and environment (`PUT|GET|DELETE /v1/authorization-decisioning`).
// ---------------------------------------------------------------------------------------------------

/** What applies when the distributor does not answer in time, or answers something unusable. */
export const DECISIONING_ON_TIMEOUT = ['approve', 'decline'] as const;
export type DecisioningOnTimeout = (typeof DECISIONING_ON_TIMEOUT)[number];

/** The distributor's deadline, in milliseconds: inside the card network's budget for the issuer's answer. */
export const DECISIONING_TIMEOUT_MS = { default: 1_000, min: 100, max: 1_500 } as const;

/**
 * Who decided a payment: the platform alone (no decisioning configured, or its own checks declined it), the
 * distributor's answer, or the distributor's `onTimeout` because no usable answer came in time.
 */
export const DECIDED_BY = ['platform', 'distributor', 'distributorTimeout'] as const;
export type DecidedBy = (typeof DECIDED_BY)[number];

/** The configuration as `GET /v1/authorization-decisioning` shows it (never the secret). */
export interface AuthorizationDecisioningView {
  url: string;
  timeoutMs: number;
  onTimeout: DecisioningOnTimeout;
  createdAt: string;
  updatedAt: string;
}

export interface ConfigureDecisioningInput {
  url: string;
  timeoutMs?: number;
  onTimeout?: DecisioningOnTimeout;
}

/** `secret` only when this call created the configuration (shown once, like a webhook secret). */
export interface ConfiguredDecisioning {
  decisioning: AuthorizationDecisioningView;
  secret?: string;
}

/**
 * The body POSTed to the distributor (signed with Standard Webhooks headers): the authorization as the
 * distributor will see it, never a card number, CVV2 or PIN. `amount` is in USD units like the API;
 * `amountMinorUnits` is the same amount in minor units (6 decimals), the unit of a partial approval.
 */
export interface DecisioningRequestBody {
  type: 'authorization.request';
  authorization: {
    id: string;
    cardId: string;
    userId: string;
    walletId: string;
    type: AuthorizationType;
    merchant: Merchant;
    amount: number;
    amountMinorUnits: number;
    currency: string;
    merchantAmount: string;
    merchantCurrency: string;
    fee: Fee;
    requestedAt: string;
  };
}

export interface AuthorizationDecisioningApi {
  /** Creates or changes the configuration; `validation_error` naming the field for a bad input. */
  configureDecisioning(caller: Caller, input: ConfigureDecisioningInput): Promise<ConfiguredDecisioning>;
  /** `404 not_found` when none is configured. */
  getDecisioning(caller: Caller): Promise<AuthorizationDecisioningView>;
  /** Switches decisioning off; `404 not_found` when none is configured. */
  disableDecisioning(caller: Caller): Promise<void>;
}

export const AUTHORIZATION_DECISIONING_API = Symbol('AUTHORIZATION_DECISIONING_API');

export const authorizationDecisioningContract = defineContext<AuthorizationDecisioningApi>({
  name: 'authorizations.decisioning',
  token: AUTHORIZATION_DECISIONING_API,
  methods: {
    configureDecisioning: ['caller', 'input'],
    getDecisioning: ['caller'],
    disableDecisioning: ['caller'],
  },
});
