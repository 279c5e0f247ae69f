/**
 * One card's secrets as the vault store keeps them: nothing in clear. The PAN (and the PIN verification
 * value, once a PIN is set) are sealed with the card's own data key, and the data key is wrapped by the
 * key-encryption key `kekId`. `panHash` is a keyed hash of the PAN (HMAC-SHA256 under the vault's index
 * key): it lets the store refuse a PAN it already holds without being able to tell which PAN it is.
 */
export interface SealedCard {
  vaultRef: string;
  panHash: string;
  kekId: string;
  /** The data key, sealed with the KEK (`SecretBox` form). */
  wrappedKey: string;
  /** The PAN, sealed with the data key. */
  sealedPan: string;
  /** The Visa PVV of the card's PIN, sealed with the data key; null until a PIN is set. */
  sealedPvv: string | null;
  expMonth: number;
  expYear: number;
  createdAt: string;
}

export interface CardVaultStore {
  /**
   * Stores a new card, durably once it resolves. `duplicate_pan` (nothing stored) when a card with the
   * same `panHash` exists: of two concurrent puts of one PAN, exactly one is stored.
   */
  put(card: SealedCard): Promise<'stored' | 'duplicate_pan'>;
  get(vaultRef: string): Promise<SealedCard | null>;
  /** Replaces the card's sealed PVV; false when there is no such card. */
  setPvv(vaultRef: string, sealedPvv: string): Promise<boolean>;
  /** Up to `limit` cards whose data key is wrapped by another KEK than `kekId`: what a rotation re-wraps. */
  listWrappedUnderOtherKeks(kekId: string, limit: number): Promise<SealedCard[]>;
  /**
   * Replaces the wrapped data key, only if the card's key is still wrapped by `fromKekId` (false
   * otherwise, and nothing changes), so that two rotations never overwrite each other's work.
   */
  rewrap(vaultRef: string, fromKekId: string, toKekId: string, wrappedKey: string): Promise<boolean>;
  close(): Promise<void>;
}
