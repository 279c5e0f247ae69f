// The value types the tokenization context publishes live in its contract (the published language); the
// domain speaks the same language.
export {
  ACTIVATION_METHODS,
  DIGITAL_WALLET_NAMES,
  PROVISIONING_METHODS,
  PUSH_PROVISIONING_WALLETS,
  TOKEN_STATUSES,
} from '@cip/tokenization/contract';
export type {
  ActivationMethod,
  DigitalWalletName,
  ProvisioningMethod,
  TokenStatus,
} from '@cip/tokenization/contract';
