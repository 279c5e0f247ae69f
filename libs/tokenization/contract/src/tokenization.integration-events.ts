import { IntegrationEvent, integrationEvent } from '@cip/shared/contracts';

/** Stream category of digital-wallet tokens (`tkn-<uuid>`): the topic their events are published on. */
export const TOKENIZATION_TOPIC = 'tkn';

/**
 * A token was recorded for a card. The context's own card-status saga reacts to it, so a token recorded
 * while its card was being frozen (the card read as active just before) follows the card all the same.
 */
export type TokenRequestedEvent = IntegrationEvent<'TokenRequested', { tokenId: string; cardId: string }>;

export const tokenRequested = integrationEvent<TokenRequestedEvent>(TOKENIZATION_TOPIC, 'TokenRequested');
