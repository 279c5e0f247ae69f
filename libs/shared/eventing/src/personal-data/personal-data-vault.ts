import { DomainError, type PersonalDataPolicy, type PersonalFields } from '@cip/shared/contracts';
import { pooledRandomBytes, SecretBox } from '@cip/shared/runtime';
import { createHmac, hkdfSync, randomBytes } from 'node:crypto';
import type { EventData, RecordedEvent } from '../event-store.port';
import type { PersonalDataKeyStore } from './personal-data-key-store.port';

/**
 * The personal fields of one event as the log stores them: sealed (AES-256-GCM) with the data key of
 * `keyId` (the subject's id), bound to the event's id and type so a sealed value cannot be moved to another
 * event. `fields` names what is inside, so an erased subject's fields read as null without any policy.
 */
export interface SealedPersonalData {
  enc: 'v1';
  keyId: string;
  fields: string[];
  /** `v1.<iv>.<tag>.<ciphertext>` of the JSON object of the fields (SecretBox). */
  ct: string;
}

/** Where an event's data keeps its sealed personal fields. */
export const SEALED_FIELD = 'personal';

const isSealed = (value: unknown): value is SealedPersonalData =>
  typeof value === 'object' &&
  value !== null &&
  (value as SealedPersonalData).enc === 'v1' &&
  typeof (value as SealedPersonalData).keyId === 'string' &&
  Array.isArray((value as SealedPersonalData).fields) &&
  typeof (value as SealedPersonalData).ct === 'string';

/** The subject's data may no longer be written: it was erased (a refusal, answered as a 4xx). */
export class PersonalDataErasedError extends DomainError {
  constructor(readonly subjectId: string) {
    super(
      'invalid_state_transition',
      `The personal data of ${subjectId} was erased; none may be recorded again`,
    );
  }
}

/** Reads the platform's master key: 32 random bytes, base64 (what `newPersonalDataMasterKey` makes). */
export function personalDataMasterKey(encoded: string): Buffer {
  const key = Buffer.from(encoded.trim(), 'base64');
  if (key.length !== 32) {
    throw new Error('PERSONAL_DATA_MASTER_KEY must be 32 random bytes in base64 (openssl rand -base64 32)');
  }
  return key;
}

export const newPersonalDataMasterKey = (): string => randomBytes(32).toString('base64');

/** One key per purpose from the master key (HKDF), so that no key serves two algorithms. */
const derive = (master: Buffer, purpose: string) =>
  Buffer.from(hkdfSync('sha256', master, Buffer.alloc(0), `cip personal data: ${purpose}`, 32));

type OpenedKey = { key: SecretBox } | { erased: true };

/** How many subjects' opened data keys stay in memory between calls (the least recently used go first). */
const CACHED_KEYS = 10_000;

/** An event opened for the consumers, with the key it was opened with (valid while that key is cached). */
interface SharedOpening {
  key: OpenedKey;
  event: RecordedEvent;
}

/**
 * Crypto-shredding of personal data in events. On append the personal fields of each event (as the
 * contexts' policies declare them) are replaced by one sealed envelope under the subject's data key, made
 * on first use; on read they are opened and put back, or read as null once the key was erased. Events
 * written before sealing existed (fields in clear) read unchanged.
 *
 * Data keys are wrapped with a key derived from the platform's master key before they are stored. Opened
 * (unwrapped) data keys are kept between calls for the most recently used subjects only while the key store
 * vouches that no other process changed a key (`PersonalDataKeyStore.changeMark`): an erasure made by
 * another process (the CLI) takes effect on this one's next call, an erasure made through this vault
 * drops the subject's key at once. A key store that cannot tell gets looked up on every call.
 */
export class PersonalDataVault {
  private readonly wrapping: SecretBox;
  private readonly indexKey: Buffer;
  private readonly policy: Map<string, PersonalFields>;
  /**
   * Opened keys kept between calls, least recently used first (a Map iterates in insertion order, which is
   * all an LRU of one kind of value needs; a dependency would add nothing). Cleared when the key store's
   * change mark moves.
   */
  private readonly cachedKeys = new Map<string, OpenedKey>();
  private changeMark: number | undefined;
  /**
   * Bumped by every erasure through this vault and every clearing of `cachedKeys`: a key looked up across
   * either is used by its call only, never kept (it may have been read before the change).
   */
  private generation = 0;
  /** See `open`'s `shared`: per stored event object, so entries go when the log's tail drops the event. */
  private readonly shared = new WeakMap<RecordedEvent, SharedOpening>();

  constructor(
    private readonly keys: PersonalDataKeyStore,
    masterKey: Buffer,
    policies: readonly PersonalDataPolicy[],
  ) {
    this.wrapping = new SecretBox(derive(masterKey, 'key wrapping'));
    this.indexKey = derive(masterKey, 'blind index');
    this.policy = new Map(policies.flatMap((p) => Object.entries(p)));
  }

  /**
   * A keyed hash (HMAC-SHA256) of a personal value, for lookups that must not disclose it (uniqueness
   * reservations): unlike a plain hash it cannot be reversed by hashing guesses without the master key.
   */
  blindIndex(value: string): string {
    return createHmac('sha256', this.indexKey).update(value, 'utf8').digest('hex');
  }

  async seal<E extends EventData>(events: E[]): Promise<E[]> {
    if (!events.some((e) => this.policy.has(e.type))) return events;
    const keys = this.keysForCall();
    const sealed: E[] = [];
    for (const event of events) {
      const policy = this.policy.get(event.type);
      const present = policy?.fields.filter((f) => event.data[f] !== undefined) ?? [];
      if (!policy || present.length === 0) {
        sealed.push(event);
        continue;
      }
      const subjectId = event.data[policy.subject];
      if (typeof subjectId !== 'string' || !subjectId) {
        throw new Error(`${event.type} has no ${policy.subject} to seal its personal data with`);
      }
      const key = await this.keyOf(subjectId, keys, event.metadata.occurredAt);
      if ('erased' in key) throw new PersonalDataErasedError(subjectId);
      const data: Record<string, unknown> = { ...event.data };
      const values: Record<string, unknown> = {};
      for (const field of present) {
        values[field] = data[field];
        delete data[field];
      }
      data[SEALED_FIELD] = {
        enc: 'v1',
        keyId: subjectId,
        fields: present,
        ct: key.key.seal(JSON.stringify(values), boundTo(event)),
      } satisfies SealedPersonalData;
      sealed.push({ ...event, data });
    }
    return sealed;
  }

  /**
   * The events with their personal fields put back (null once erased). With `shared`, for the log's
   * consumers, which are given the same stored event objects one group after the other: an event is opened
   * once and every group gets the same opened copy, frozen (consumers never modify what they are given),
   * for as long as its subject's key stays cached; an erasure drops the key, so the next call opens the
   * event again and reads the fields as null.
   */
  async open<E extends RecordedEvent>(events: E[], options: { shared?: boolean } = {}): Promise<E[]> {
    if (!events.some((e) => this.policy.has(e.type) || isSealed(e.data[SEALED_FIELD]))) return events;
    const keys = this.keysForCall();
    const share = options.shared === true && keys === this.cachedKeys;
    const erased = new Map<string, boolean>();
    const opened: E[] = [];
    for (const event of events) {
      const envelope = event.data[SEALED_FIELD];
      if (!isSealed(envelope)) {
        opened.push(await this.inClear(event, keys, erased));
        continue;
      }
      const before = share ? this.shared.get(event) : undefined;
      if (before && before.key === keys.get(envelope.keyId)) {
        opened.push(before.event as E);
        continue;
      }
      const key = await this.keyOf(envelope.keyId, keys);
      const { [SEALED_FIELD]: _sealed, ...data } = event.data;
      const values: Record<string, unknown> =
        'erased' in key
          ? Object.fromEntries(envelope.fields.map((field) => [field, null]))
          : JSON.parse(key.key.open(envelope.ct, boundTo(event)));
      const openedEvent = { ...event, data: { ...data, ...values } };
      if (share && keys.get(envelope.keyId) === key) {
        Object.freeze(openedEvent.data);
        this.shared.set(event, { key, event: Object.freeze(openedEvent) });
      }
      opened.push(openedEvent);
    }
    return opened;
  }

  /**
   * An event written before sealing existed keeps its fields in clear in the log (stored events are never
   * rewritten); once its subject is erased they read as null all the same, so that everything derived
   * from the log shows the erasure.
   */
  private async inClear<E extends RecordedEvent>(
    event: E,
    keys: Map<string, OpenedKey>,
    erasedOf: Map<string, boolean>,
  ): Promise<E> {
    const policy = this.policy.get(event.type);
    const subjectId = policy && event.data[policy.subject];
    if (!policy || typeof subjectId !== 'string') return event;
    const present = policy.fields.filter((f) => event.data[f] !== undefined);
    // Nothing in clear to hide: no need to ask the key store.
    if (present.length === 0) return event;
    // Asked once per subject and call, whatever the answer (like keyOf's cache, which it reuses).
    const opened = keys.get(subjectId);
    let erased = opened ? 'erased' in opened : erasedOf.get(subjectId);
    if (erased === undefined) {
      erased = (await this.keys.get(subjectId))?.status === 'erased';
      erasedOf.set(subjectId, erased);
    }
    if (!erased) return event;
    return { ...event, data: { ...event.data, ...Object.fromEntries(present.map((f) => [f, null])) } };
  }

  /** Deletes the subject's data key: its sealed fields read as null everywhere from now on. */
  async erase(subjectId: string, at: string): Promise<void> {
    this.forget(subjectId);
    try {
      await this.keys.erase(subjectId, at);
    } finally {
      // Also after: a lookup that read the key while the erasure was under way must not have kept it.
      this.forget(subjectId);
    }
  }

  private forget(subjectId: string): void {
    this.generation += 1;
    this.cachedKeys.delete(subjectId);
  }

  /**
   * The opened keys this call may use: the ones kept between calls while the key store's change mark has
   * not moved (or a fresh set, when the key store offers none).
   */
  private keysForCall(): Map<string, OpenedKey> {
    if (!this.keys.changeMark) return new Map();
    const mark = this.keys.changeMark();
    if (mark !== this.changeMark) {
      this.generation += 1;
      this.cachedKeys.clear();
      this.changeMark = mark;
    }
    return this.cachedKeys;
  }

  /** Whether the subject's data key was erased. */
  async isErased(subjectId: string): Promise<boolean> {
    return (await this.keys.get(subjectId))?.status === 'erased';
  }

  close(): Promise<void> {
    this.cachedKeys.clear();
    return this.keys.close();
  }

  /** The subject's data key; made and stored first when `createAt` is given and it has none. */
  private async keyOf(
    subjectId: string,
    cache: Map<string, OpenedKey>,
    createAt?: string,
  ): Promise<OpenedKey> {
    const cached = cache.get(subjectId);
    if (cached) {
      if (cache === this.cachedKeys) {
        // Most recently used last.
        cache.delete(subjectId);
        cache.set(subjectId, cached);
      }
      return cached;
    }
    const generation = this.generation;
    let stored = await this.keys.get(subjectId);
    let made: { key: Buffer; wrapped: string } | undefined;
    if (!stored && createAt !== undefined) {
      const key = pooledRandomBytes(32);
      made = { key, wrapped: this.wrapping.seal(key, wrapContext(subjectId)) };
      stored = await this.keys.create(subjectId, made.wrapped, createAt);
    }
    if (!stored) {
      // Not a missing key to read as erased: the log references a key this key store never had, so it is
      // not this log's key store (a wrong DATA_DIR or database). Reading on would show everything erased.
      throw new Error(
        `No personal-data key for ${subjectId}: the key store does not belong to this event log`,
      );
    }
    const key: OpenedKey =
      stored.status === 'erased'
        ? { erased: true }
        : {
            key: new SecretBox(
              // The key this call made won the creation: no need to unwrap what it just wrapped.
              made?.wrapped === stored.wrappedKey
                ? made.key
                : this.wrapping.openBytes(stored.wrappedKey, wrapContext(subjectId)),
            ),
          };
    // A key read across an erasure or a change by another process serves this call only (it was concurrent).
    if (cache !== this.cachedKeys || generation === this.generation) {
      cache.set(subjectId, key);
      if (cache.size > CACHED_KEYS) cache.delete(cache.keys().next().value as string);
    }
    return key;
  }
}

const wrapContext = (subjectId: string) => `key of ${subjectId}`;
const boundTo = (event: EventData) => `${event.metadata.eventId}|${event.type}`;
