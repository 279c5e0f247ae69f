import {
  assertPin,
  cardExpiry,
  expiryYymm,
  generatePan,
  visaCvv2,
  visaPvv,
  type CardExpiry,
} from '@cip/cards/domain';
import { DomainError, notFound } from '@cip/shared/contracts';
import { newId, pooledRandomBytes, SecretBox } from '@cip/shared/runtime';
import { createHash, createHmac, randomBytes, randomInt, timingSafeEqual } from 'node:crypto';
import type { CardVaultStore, RevealLink, SealedCard } from './card-vault-store.port';
import { newKekId, type KeyEncryptionKeys } from './key-encryption-keys';

/** The vault's own keys besides the KEKs (see `loadCardVaultKeys`). */
export interface CardVaultKeys {
  /** HMAC-SHA256 key of the PAN hashes that enforce uniqueness (32 bytes); never rotated. */
  indexKey: Buffer;
  /** Card verification key pair, A|B (16 bytes). */
  cvk: Buffer;
  /** PIN verification key pair, A|B (16 bytes). */
  pvk: Buffer;
}

/** What may leave the vault about an issued card: the reference and what is printed in clear anyway. */
export interface IssuedCard extends CardExpiry {
  vaultRef: string;
  bin: string;
  last4: string;
}

/** The card's secrets, for the single-use hosted reveal page only. */
export interface RevealedCard extends CardExpiry {
  pan: string;
  cvv2: string;
}

/** What a KEK rotation did (`rotateKek`). */
export interface KekRotation {
  /** The KEK every data key is wrapped by now. */
  kekId: string;
  /** Whether it finished a rotation that had been interrupted instead of starting a new one. */
  resumed: boolean;
  rewrapped: number;
  /** The KEKs it removed from the ring. */
  retired: string[];
}

/** A single-use reveal link's token: 32 random bytes, base64url. */
const REVEAL_TOKEN = /^[A-Za-z0-9_-]{43}$/;
const revealTokenHash = (token: string) => createHash('sha256').update(token, 'utf8').digest('hex');

/** Every card's PVV is computed under PVK index 1: there is one PVK pair per environment so far. */
const PVKI = 1;
const REWRAP_BATCH = 200;
/** Wraps under a KEK that a rotation retired meanwhile, before giving up on an issue. */
const STALE_KEK_RETRIES = 5;

const sameDigits = (a: string, b: string) =>
  a.length === b.length && timingSafeEqual(Buffer.from(a), Buffer.from(b));

/**
 * The card vault: the only code that sees a PAN, a CVV2 or a PIN. It issues a card (a fresh PAN in the
 * BIN's range, never one the store holds), keeps the PAN sealed under a data key of the card's own that a
 * KEK wraps (AES-256-GCM envelope encryption), derives the CVV2 on demand with the CVK (it is never
 * stored), keeps only the PIN's Visa PVV, and re-wraps every data key under a new KEK without stopping
 * reads. Outside it, a card is its `vaultRef`, `last4`, BIN and expiry.
 */
export class CardVault {
  private readonly maxAttempts: number;
  private readonly randomDigit: () => number;
  /** The active KEK as last read from the store; a put refused as `stale_kek` reads it again. */
  private activeKek: Promise<string> | null = null;

  constructor(
    private readonly store: CardVaultStore,
    private readonly keks: KeyEncryptionKeys,
    private readonly keys: CardVaultKeys,
    options: {
      /** Draws of a PAN before giving up on a crowded BIN range (default 20). */
      maxAttempts?: number;
      /** The account digits' source; `crypto.randomInt` unless a test narrows the range. */
      randomDigit?: () => number;
    } = {},
  ) {
    if (keys.indexKey.length !== 32) throw new Error('The card vault index key must be 32 bytes');
    this.maxAttempts = options.maxAttempts ?? 20;
    this.randomDigit = options.randomDigit ?? (() => randomInt(10));
  }

  /**
   * `vaultRef`: the reference to issue under (the cards context derives it from the card id, so the network
   * finds the card of a PAN without an index); a fresh random one when absent.
   */
  async issueCard(input: {
    bin: string;
    lifetimeMonths: number;
    now: Date;
    vaultRef?: string;
  }): Promise<IssuedCard> {
    const expiry = cardExpiry(input.now, input.lifetimeMonths);
    let staleKeks = 0;
    for (let attempt = 0; attempt < this.maxAttempts;) {
      const pan = generatePan(input.bin, this.randomDigit);
      const vaultRef = input.vaultRef ?? newId('vlt');
      const { kekId, kek } = await this.wrappingKek();
      const dataKey = pooledRandomBytes(32);
      const outcome = await this.store.put({
        vaultRef,
        panHash: this.panHash(pan),
        kekId,
        wrappedKey: new SecretBox(kek).seal(dataKey, wrapContext(vaultRef)),
        sealedPan: new SecretBox(dataKey).seal(pan, panContext(vaultRef)),
        sealedPvv: null,
        ...expiry,
        createdAt: input.now.toISOString(),
      });
      if (outcome === 'stored') return { vaultRef, bin: input.bin, last4: pan.slice(-4), ...expiry };
      if (outcome === 'existing_ref') {
        // Issued already for this card (a retried issue): the card it was issued keeps its number.
        const existing = await this.open(vaultRef);
        return {
          vaultRef,
          bin: existing.pan.slice(0, input.bin.length),
          last4: existing.pan.slice(-4),
          expMonth: existing.card.expMonth,
          expYear: existing.card.expYear,
        };
      }
      if (outcome === 'duplicate_pan') {
        attempt++;
        continue;
      }
      // A rotation (another process, the CLI) switched the active KEK since it was read: wrap again.
      if (++staleKeks > STALE_KEK_RETRIES) {
        throw new Error(`The card vault's active KEK kept changing during ${STALE_KEK_RETRIES} issues`);
      }
      this.activeKek = null;
    }
    throw new DomainError(
      'invalid_state_transition',
      `No unused card number was found in BIN ${input.bin} after ${this.maxAttempts} draws: the range is nearly full`,
    );
  }

  /** Whether `cvv2` is the card's CVV2 for `expiry` (a wrong expiry gives another CVV2, so it fails). */
  async verifyCvv2(vaultRef: string, cvv2: string, expiry: CardExpiry): Promise<boolean> {
    const { pan } = await this.open(vaultRef);
    return sameDigits(visaCvv2({ cvk: this.keys.cvk, pan, expiryYymm: expiryYymm(expiry) }), cvv2);
  }

  /**
   * The card with this PAN and expiry, found through the PAN's keyed hash (the unique index; nothing is
   * scanned or opened): its reference and expiry, or null when no card has that PAN or its expiry differs
   * (a PAN with another expiry is not this card, as for the CVV2).
   */
  async findByPan(pan: string, expiry: CardExpiry): Promise<({ vaultRef: string } & CardExpiry) | null> {
    if (!/^\d{12,19}$/.test(pan)) return null;
    const card = await this.store.findByPanHash(this.panHash(pan));
    if (!card || card.expMonth !== expiry.expMonth || card.expYear !== expiry.expYear) return null;
    return { vaultRef: card.vaultRef, expMonth: card.expMonth, expYear: card.expYear };
  }

  /** Sets (or replaces) the card's PIN: only its PVV is stored, sealed like the PAN. */
  async setPin(vaultRef: string, pin: string): Promise<void> {
    assertPin(pin);
    const { pan, dataKey } = await this.open(vaultRef);
    const pvv = visaPvv({ pvk: this.keys.pvk, pvki: PVKI, pan, pin });
    if (!(await this.store.setPvv(vaultRef, new SecretBox(dataKey).seal(pvv, pvvContext(vaultRef))))) {
      throw notFound('Card', vaultRef);
    }
  }

  /** Whether `pin` is the card's PIN; false when no PIN was set. */
  async verifyPin(vaultRef: string, pin: string): Promise<boolean> {
    const { pan, dataKey, card } = await this.open(vaultRef);
    if (card.sealedPvv === null || !/^\d{4}$/.test(pin)) return false;
    const stored = new SecretBox(dataKey).open(card.sealedPvv, pvvContext(vaultRef));
    return sameDigits(visaPvv({ pvk: this.keys.pvk, pvki: PVKI, pan, pin }), stored);
  }

  /** PAN, CVV2 and expiry, for the hosted reveal page (the only way out for the CVV2). */
  async revealForHostedPage(vaultRef: string): Promise<RevealedCard> {
    const { pan, card } = await this.open(vaultRef);
    const expiry = { expMonth: card.expMonth, expYear: card.expYear };
    return { pan, cvv2: visaCvv2({ cvk: this.keys.cvk, pan, expiryYymm: expiryYymm(expiry) }), ...expiry };
  }

  /**
   * PAN and expiry (no CVV2), for a digital wallet's push provisioning: the tokenization context seals them
   * at once into the provider's encrypted payload. A read: it writes nothing to the store.
   */
  async revealForProvisioning(vaultRef: string): Promise<CardExpiry & { pan: string }> {
    const { pan, card } = await this.open(vaultRef);
    return { pan, expMonth: card.expMonth, expYear: card.expYear };
  }

  /**
   * Makes a single-use link to the card's hosted reveal page: a random token (returned once, never stored:
   * the store keeps its SHA-256), valid until `expiresAt`.
   */
  async createRevealLink(
    link: Omit<RevealLink, 'tokenHash' | 'createdAt' | 'expiresAt'> & { now: Date; expiresAt: Date },
  ): Promise<string> {
    const { now, expiresAt, ...rest } = link;
    const token = randomBytes(32).toString('base64url');
    await this.store.addRevealLink({
      ...rest,
      tokenHash: revealTokenHash(token),
      createdAt: now.toISOString(),
      expiresAt: expiresAt.toISOString(),
    });
    return token;
  }

  /**
   * Uses a reveal link: the link (which card, who asked) if the token is one of this vault's, unused and
   * not expired at `now`; it can never be used again. Null otherwise (unknown, used or expired alike).
   */
  async useRevealLink(token: string, now: Date): Promise<RevealLink | null> {
    if (!REVEAL_TOKEN.test(token)) return null;
    return this.store.useRevealLink(revealTokenHash(token), now.toISOString());
  }

  /** The reveal link if the token is one of this vault's, unused and not expired at `now`; left unused. */
  async findRevealLink(token: string, now: Date): Promise<RevealLink | null> {
    if (!REVEAL_TOKEN.test(token)) return null;
    return this.store.findRevealLink(revealTokenHash(token), now.toISOString());
  }

  /**
   * Re-wraps every data key under a new KEK, then removes the KEKs no data key uses any more. Safe beside
   * a running platform issuing and reading cards in another process, and resumable:
   * - the new KEK is written to the ring while the store's write lock is held, then registered as the
   *   active one in the same write, so two rotations never interleave and no card is wrapped by a key the
   *   ring lacks;
   * - from that commit on, the store refuses a new card wrapped by any other KEK (`stale_kek`): the
   *   platform reads the active KEK again and wraps under it, so it picks up the new KEK by itself;
   * - data keys are re-wrapped in batches, one transaction each, with a pause as long as the batch took
   *   after each; reads open a card with whichever KEK wraps it at the time (every registered KEK stays
   *   in the ring);
   * - a KEK leaves the ring only after the store has forgotten it, which it does only when no data key
   *   references it, checked in the same write.
   * Run again after a crash (kill -9), it finishes the interrupted rotation (a retiring KEK is left)
   * instead of starting another. With configured KEKs the ring cannot change: the configured first key
   * becomes the active one and everything is re-wrapped under it.
   */
  async rotateKek(
    options: { batchSize?: number; onProgress?: (rewrapped: number) => void } = {},
  ): Promise<KekRotation> {
    const batchSize = options.batchSize ?? REWRAP_BATCH;
    const registered = await this.store.registeredKeks();
    const resumed = registered.some((kek) => kek.status === 'retiring');
    let kekId: string;
    if (resumed || this.keks.configured) {
      kekId = this.keks.configured ? this.keks.activeId() : await this.activeKekId();
      if ((await this.store.activeKekId()) !== kekId) await this.store.activateKek(kekId);
    } else {
      kekId = newKekId();
      await this.store.activateKek(kekId, () => this.keks.add(kekId));
    }
    this.activeKek = Promise.resolve(kekId);
    const to = new SecretBox(this.keks.key(kekId));
    let rewrapped = 0;
    const retired: string[] = [];
    for (;;) {
      for (;;) {
        const started = performance.now();
        const count = await this.store.rewrapBatch(kekId, batchSize, (card) =>
          to.seal(
            new SecretBox(this.keks.key(card.kekId)).openBytes(card.wrappedKey, wrapContext(card.vaultRef)),
            wrapContext(card.vaultRef),
          ),
        );
        if (count === 0) break;
        rewrapped += count;
        options.onProgress?.(rewrapped);
        // As long again without the write lock: the platform's commits (synchronous, waiting on the lock
        // in SQLite's busy handler) get their turn, so a rotation slows issuing by half at worst, never
        // stalls it up to its busy timeout.
        await new Promise((resolve) => setTimeout(resolve, Math.max(1, performance.now() - started)));
      }
      const outcome = await this.store.retireUnreferencedKeks((ids) => this.keks.retainOnly(kekId, ids));
      retired.push(...outcome.retired);
      // Nothing can be wrapped by a retiring KEK after the switch; this only guards that belief.
      if ((await this.store.registeredKeks()).every((kek) => kek.status === 'active')) break;
    }
    return { kekId, resumed, rewrapped, retired };
  }

  /** The KEKs the store knows and how many data keys each wraps (the CLI's `vault status`). */
  registeredKeks() {
    return this.store.registeredKeks();
  }

  close(): Promise<void> {
    return this.store.close();
  }

  /**
   * The active KEK, from the store: registered on first use from the ring when the store has none yet
   * (a fresh vault, or one from before the registry), or when the configured ring names another first key
   * (a deployment that put its new KEK first and restarted).
   */
  private activeKekId(): Promise<string> {
    this.activeKek ??= (async () => {
      const active = await this.store.activeKekId();
      const wanted = active === null || this.keks.configured ? this.keks.activeId() : active;
      if (wanted !== active) await this.store.activateKek(wanted);
      return wanted;
    })().catch((error: unknown) => {
      this.activeKek = null;
      throw error;
    });
    return this.activeKek;
  }

  /** The active KEK and its key; a KEK a rotation elsewhere retired since it was read is read again. */
  private async wrappingKek(): Promise<{ kekId: string; kek: Buffer }> {
    const kekId = await this.activeKekId();
    try {
      return { kekId, kek: this.keks.key(kekId) };
    } catch (error) {
      this.activeKek = null;
      const fresh = await this.activeKekId();
      if (fresh === kekId) throw error;
      return { kekId: fresh, kek: this.keks.key(fresh) };
    }
  }

  private panHash(pan: string): string {
    return createHmac('sha256', this.keys.indexKey).update(pan, 'utf8').digest('hex');
  }

  private async open(vaultRef: string): Promise<{ card: SealedCard; pan: string; dataKey: Buffer }> {
    let card = await this.store.get(vaultRef);
    if (!card) throw notFound('Card', vaultRef);
    let kek: Buffer;
    try {
      kek = this.keks.key(card.kekId);
    } catch {
      // A rotation finished between the read and now: the card is wrapped by the new KEK already.
      card = (await this.store.get(vaultRef)) as SealedCard;
      kek = this.keks.key(card.kekId);
    }
    const dataKey = new SecretBox(kek).openBytes(card.wrappedKey, wrapContext(vaultRef));
    return { card, dataKey, pan: new SecretBox(dataKey).open(card.sealedPan, panContext(vaultRef)) };
  }
}

// What each sealed value is bound to (GCM additional data): a sealed PAN, PVV or data key copied to another
// card's row does not open there.
const wrapContext = (vaultRef: string) => `card data key|${vaultRef}`;
const panContext = (vaultRef: string) => `card pan|${vaultRef}`;
const pvvContext = (vaultRef: string) => `card pvv|${vaultRef}`;
