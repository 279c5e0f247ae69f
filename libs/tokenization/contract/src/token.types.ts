// ---------------------------------------------------------------------------------------------------
// Value types of the tokenization context, as every other context and the API see them
// ---------------------------------------------------------------------------------------------------

/**
 * A digital-wallet token's lifecycle, after Visa VTS and Lithic: `pending_activation` until the user
 * authenticates with the provider (`activate-tokenization`, or the token service after an activation
 * code), `active` while it can pay, `suspended` while its card is not active (frozen), `deleted` once its
 * card is revoked (terminal).
 */
export const TOKEN_STATUSES = ['pending_activation', 'active', 'suspended', 'deleted'] as const;
export type TokenStatus = (typeof TOKEN_STATUSES)[number];

/** API-DECISIONS: the two providers of the spec, and click-to-pay programs (activated events only). */
export const DIGITAL_WALLET_NAMES = ['applePay', 'googlePay', 'remoteCommercePrograms'] as const;
export type DigitalWalletName = (typeof DIGITAL_WALLET_NAMES)[number];

/** The providers that deliver activation codes and take push-provisioning payloads (spec part 6). */
export const PUSH_PROVISIONING_WALLETS = ['applePay', 'googlePay'] as const;

/** How the token service delivers a token's activation code, through the distributor (spec part 6). */
export const ACTIVATION_METHODS = ['email', 'sms'] as const;
export type ActivationMethod = (typeof ACTIVATION_METHODS)[number];

/** How a token came to be: pushed from the distributor's app, or card details typed into the wallet. */
export const PROVISIONING_METHODS = ['push', 'manual'] as const;
export type ProvisioningMethod = (typeof PROVISIONING_METHODS)[number];
