/**
 * Stream category of digital-wallet tokens (`tkn-<uuid>`): the topic their events are published on. No
 * integration event is published: no other context reacts to tokens yet.
 */
export const TOKENIZATION_TOPIC = 'tkn';
