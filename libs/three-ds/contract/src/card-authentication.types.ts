/**
 * A card authentication (an out-of-band 3-D Secure challenge the distributor decides): `pending` until the
 * distributor accepts or rejects it, or until its deadline passes (`expired`, fail closed).
 */
export const CARD_AUTHENTICATION_STATUSES = ['pending', 'accepted', 'rejected', 'expired'] as const;
export type CardAuthenticationStatus = (typeof CARD_AUTHENTICATION_STATUSES)[number];

/** What is authenticated: a payment (EMV message category 01) or a card verification (02, no amount). */
export const CARD_AUTHENTICATION_PURPOSES = ['payment', 'cardVerification'] as const;
export type CardAuthenticationPurpose = (typeof CARD_AUTHENTICATION_PURPOSES)[number];

/** A program's 3DS settings: how long a challenge waits for the distributor's answer (1 to 10 minutes). */
export const THREE_DS_DEADLINE_RANGE_SECONDS = { min: 60, max: 600 } as const;
export const DEFAULT_THREE_DS_DEADLINE_SECONDS = 300;
