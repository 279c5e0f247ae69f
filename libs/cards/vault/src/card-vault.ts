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
import { newId, SecretBox } from '@cip/shared/runtime';
import { createHmac, randomBytes, randomInt, timingSafeEqual } from 'node:crypto';
import type { CardVaultStore, SealedCard } from './card-vault-store.port';
import type { KeyEncryptionKeys } from './key-encryption-keys';

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

/** Every card's PVV is computed under PVK index 1: there is one PVK pair per environment so far. */
const PVKI = 1;
const REWRAP_BATCH = 200;

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

  async issueCard(input: { bin: string; lifetimeMonths: number; now: Date }): Promise<IssuedCard> {
    const expiry = cardExpiry(input.now, input.lifetimeMonths);
    for (let attempt = 0; attempt < this.maxAttempts; attempt++) {
      const pan = generatePan(input.bin, this.randomDigit);
      const vaultRef = newId('vlt');
      const kekId = this.keks.activeId();
      const dataKey = randomBytes(32);
      const outcome = await this.store.put({
        vaultRef,
        panHash: this.panHash(pan),
        kekId,
        wrappedKey: new SecretBox(this.keks.key(kekId)).seal(dataKey, wrapContext(vaultRef)),
        sealedPan: new SecretBox(dataKey).seal(pan, panContext(vaultRef)),
        sealedPvv: null,
        ...expiry,
        createdAt: input.now.toISOString(),
      });
      if (outcome === 'stored') return { vaultRef, bin: input.bin, last4: pan.slice(-4), ...expiry };
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
   * Re-wraps every data key under a new KEK (or, with configured KEKs, under the configured active one),
   * then forgets the old KEKs. Reads keep working throughout: a card is readable with whichever KEK
   * wraps it at the time, and the old KEKs are dropped only once no card uses them. Resumable: run again
   * after a crash, it carries on with what is left. Returns the active KEK and how many keys it re-wrapped.
   */
  async rotateKek(): Promise<{ kekId: string; rewrapped: number }> {
    const kekId = this.keks.beginRotation();
    const to = new SecretBox(this.keks.key(kekId));
    let rewrapped = 0;
    for (;;) {
      const batch = await this.store.listWrappedUnderOtherKeks(kekId, REWRAP_BATCH);
      if (batch.length === 0) break;
      for (const card of batch) {
        const dataKey = new SecretBox(this.keks.key(card.kekId)).openBytes(
          card.wrappedKey,
          wrapContext(card.vaultRef),
        );
        const wrapped = to.seal(dataKey, wrapContext(card.vaultRef));
        if (await this.store.rewrap(card.vaultRef, card.kekId, kekId, wrapped)) rewrapped++;
      }
    }
    this.keks.retireInactive();
    return { kekId, rewrapped };
  }

  close(): Promise<void> {
    return this.store.close();
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
