// The value types are the contract's (HOUSE-STYLE: the domain re-exports them instead of defining its own).
export {
  AUTHORIZATION_ID_PREFIX,
  AUTHORIZATION_STATUSES,
  AUTHORIZATION_TYPES,
  CARD_CURRENCY,
  DECLINE_DETAILS,
  DECLINE_REASON_CODES,
  FEE_IMPLIED_DECIMALS,
  type AuthorizationDecision,
  type AuthorizationStatus,
  type AuthorizationType,
  type DeclineDetail,
  type DeclineReasonCode,
  type Fee,
  type Merchant,
} from '@cip/authorizations/contract';
