import type { CardCreated } from './card.events';
import type { CardStatus } from './card.types';

// ---------------------------------------------------------------------------------------------------
// The one card the decider unit specs act on (card.decider, card.holds, card-physical). Test-only: not
// exported from the lib.
// ---------------------------------------------------------------------------------------------------

export const CARD_ID = 'crd-5d0c2f7e';
export const CREATED_AT = '2026-11-23T10:00:00.000Z';
export const LATER = '2026-11-24T08:30:00.000Z';
/** What the vault issued for it, as the card's events carry it. */
export const ISSUED = { vaultRef: 'vlt-81aa', bin: '40000099', last4: '4242', expMonth: 11, expYear: 2029 };
export const OWNER = { cardId: CARD_ID, distributorId: 'dst-9f31', userId: 'usr-4b7e', walletId: 'wal-77c1' };

/** The virtual card created, in this status. */
export const created = (status: CardStatus = 'active'): CardCreated => ({
  type: 'CardCreated',
  data: { ...OWNER, type: 'virtual', status, ...ISSUED, createdAt: CREATED_AT },
});
