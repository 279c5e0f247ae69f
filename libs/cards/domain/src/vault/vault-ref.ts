// ---------------------------------------------------------------------------------------------------
// A card's vault reference is its card id under the vault's prefix (`crd-<uuid>` <-> `vlt-<uuid>`), chosen
// by the cards context when it issues the card. So the card network's path, PAN -> vault reference (the
// vault's PAN index) -> card, needs no index of its own, and no read model holds a vault reference. Cards
// issued before this rule have a random reference and are not found by the network (sandbox data of
// earlier versions: reissue them).
// ---------------------------------------------------------------------------------------------------

const CARD_PREFIX = 'crd-';
const VAULT_PREFIX = 'vlt-';

/** The vault reference a new card is issued under. */
export const vaultRefOfCard = (cardId: string): string =>
  `${VAULT_PREFIX}${cardId.slice(CARD_PREFIX.length)}`;

/** The card a vault reference belongs to, or null for a reference of the earlier, random form's kind. */
export const cardIdOfVaultRef = (vaultRef: string): string | null =>
  vaultRef.startsWith(VAULT_PREFIX) ? `${CARD_PREFIX}${vaultRef.slice(VAULT_PREFIX.length)}` : null;
