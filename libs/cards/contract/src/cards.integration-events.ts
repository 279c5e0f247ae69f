/**
 * Stream category of cards (`crd-<uuid>`): the topic their events are published on. No integration event
 * is published yet: the authorization and tokenization contexts will add the ones they react to.
 */
export const CARDS_TOPIC = 'crd';
