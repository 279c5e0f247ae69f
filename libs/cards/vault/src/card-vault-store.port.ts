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

/**
 * What `put` did: `stale_kek` when the card's data key is wrapped by a KEK that is no longer the active one
 * (a rotation switched it since the caller looked): nothing is stored, and the caller wraps again under the
 * active KEK. This is what keeps a rotation in another process from leaving a card under a KEK it retires.
 * `existing_ref` when a card is stored under the vault reference already (an issue retried for the same
 * card, whose reference derives from the card id): nothing is stored, the stored card stands.
 */
export type PutOutcome = 'stored' | 'duplicate_pan' | 'stale_kek' | 'existing_ref';

/** A KEK the store knows: `active` wraps new data keys; `retiring` ones still wrap some until re-wrapped. */
export interface RegisteredKek {
  kekId: string;
  status: 'active' | 'retiring';
  /** How many data keys it wraps now. */
  cards: number;
}

/**
 * A single-use reveal link (`POST /v1/cards/{id}/reveal`) as the store keeps it: the token's SHA-256 only
 * (the token itself is never stored), the card it shows, who asked (distributor, request id) and until when.
 */
export interface RevealLink {
  tokenHash: string;
  vaultRef: string;
  cardId: string;
  distributorId: string;
  /** The request id of the API call that made the link: the audit trail ties the view to it. */
  requestId: string;
  createdAt: string;
  expiresAt: string;
}

export interface CardVaultStore {
  /**
   * Stores a new card, durably once it resolves (concurrent puts may share one commit). `duplicate_pan`
   * (nothing stored) when a card with the same `panHash` exists: of two concurrent puts of one PAN, exactly
   * one is stored. `stale_kek` (nothing stored) when `kekId` is not the active KEK.
   */
  put(card: SealedCard): Promise<PutOutcome>;
  get(vaultRef: string): Promise<SealedCard | null>;
  /** The card whose PAN has this keyed hash, through the unique index on it (the network's way to a card). */
  findByPanHash(panHash: string): Promise<SealedCard | null>;
  /** Replaces the card's sealed PVV; false when there is no such card. */
  setPvv(vaultRef: string, sealedPvv: string): Promise<boolean>;

  /** The active KEK's id; null before the first one is registered. */
  activeKekId(): Promise<string | null>;
  /** Every registered KEK and how many data keys each wraps. */
  registeredKeks(): Promise<RegisteredKek[]>;
  /**
   * Makes `kekId` the active KEK in one write: the active one before it becomes retiring, and so does any
   * KEK a stored card uses that is not registered yet (a store from before the registry). `whileLocked`
   * runs inside that write, holding the store's write lock (across processes): the caller writes the new
   * key where keys live there, so two rotations never interleave and the key exists before it is active.
   * If it throws, nothing changes.
   */
  activateKek(kekId: string, whileLocked?: () => void): Promise<void>;
  /**
   * Re-wraps, in one transaction, up to `limit` data keys wrapped by another KEK than `toKekId`, each with
   * `rewrap(card)` (the new wrapped key). Returns how many it re-wrapped: 0 once none is left.
   */
  rewrapBatch(toKekId: string, limit: number, rewrap: (card: SealedCard) => string): Promise<number>;
  /**
   * Forgets, in one write, every retiring KEK that no data key references any more. `whileLocked` runs
   * inside that write with the ids still registered (the caller drops the other keys from its ring).
   */
  retireUnreferencedKeks(whileLocked?: (registered: string[]) => void): Promise<{ retired: string[] }>;

  /** Stores a reveal link, durably once it resolves. */
  addRevealLink(link: RevealLink): Promise<void>;
  /**
   * Uses the link whose token hashes to `tokenHash`, if it is unused and `now` is before its expiry: it is
   * then marked used, durably and atomically (of two concurrent uses exactly one gets it). Null otherwise.
   */
  useRevealLink(tokenHash: string, now: string): Promise<RevealLink | null>;
  /**
   * The link whose token hashes to `tokenHash` if it is unused and `now` is before its expiry, left as it
   * is (the page's GET, a HEAD or a link preview must not use it). Null otherwise.
   */
  findRevealLink(tokenHash: string, now: string): Promise<RevealLink | null>;

  close(): Promise<void>;
}
