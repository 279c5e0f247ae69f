// Types only: importing this file must not load mongoose (the embedded runtime never does; see
// `openMongoCardVault`, which loads it when it connects).
import type { ClientSession, Collection, Connection, mongo } from 'mongoose';
import type {
  CardVaultStore,
  PutOutcome,
  RegisteredKek,
  RevealLink,
  SealedCard,
} from './card-vault-store.port';

interface CardDocument {
  /** The vault reference. */
  _id: string;
  panHash: string;
  kekId: string;
  wrappedKey: string;
  sealedPan: string;
  sealedPvv: string | null;
  expMonth: number;
  expYear: number;
  createdAt: string;
}

/**
 * The KEK registry: one document, the vault's write lock. Every transaction that depends on which KEK is
 * active, or changes it, increments `version` first (see `lockRegistry`).
 */
interface RegistryDocument {
  _id: typeof REGISTRY_ID;
  active: string | null;
  /** An array, not an object keyed by id: a configured KEK id may hold a `.` or start with `$`. */
  keks: { kekId: string; status: RegisteredKek['status'] }[];
  version: number;
}

interface LinkDocument {
  /** The token's SHA-256. */
  _id: string;
  vaultRef: string;
  cardId: string;
  distributorId: string;
  requestId: string;
  createdAt: string;
  expiresAt: string;
  usedAt: string | null;
}

interface PendingPut {
  card: SealedCard;
  resolve(outcome: PutOutcome): void;
  reject(error: unknown): void;
}

const CARDS = 'cards';
const REGISTRY = 'key_encryption_keys';
const LINKS = 'reveal_links';
const REGISTRY_ID = 'registry';
const PAN_INDEX = 'pan_hash_unique';
const DUPLICATE_KEY = 11000;
/** Cards written in one transaction at most: a transaction stays well under MongoDB's size limits. */
const MAX_BATCH = 500;
/** A batch that lost a PAN to another process's commit after its snapshot is written again, this often. */
const DUPLICATE_PAN_RETRIES = 5;

/** Acknowledged only once a majority of the replica set has it in its journal: no acknowledged write is lost. */
const DURABLE: mongo.WriteConcernSettings = { w: 'majority', journal: true };
const TRANSACTION: mongo.TransactionOptions = {
  readConcern: { level: 'snapshot' },
  writeConcern: DURABLE,
  readPreference: 'primary',
};

const toCard = (doc: CardDocument): SealedCard => ({
  vaultRef: doc._id,
  panHash: doc.panHash,
  kekId: doc.kekId,
  wrappedKey: doc.wrappedKey,
  sealedPan: doc.sealedPan,
  sealedPvv: doc.sealedPvv,
  expMonth: doc.expMonth,
  expYear: doc.expYear,
  createdAt: doc.createdAt,
});

const toLink = (doc: LinkDocument): RevealLink => ({
  tokenHash: doc._id,
  vaultRef: doc.vaultRef,
  cardId: doc.cardId,
  distributorId: doc.distributorId,
  requestId: doc.requestId,
  createdAt: doc.createdAt,
  expiresAt: doc.expiresAt,
});

/** Byte order, as SQLite's `ORDER BY` on text: the same listing from both adapters. */
const byCodeUnit = (a: string, b: string) => (a < b ? -1 : a > b ? 1 : 0);

/** Whether `error` is a duplicate key on the PAN hash index (a stored `_id` is found before the write). */
function isDuplicatePan(error: unknown): boolean {
  const candidates = [error, ...((error as { writeErrors?: unknown[] }).writeErrors ?? [])];
  return candidates.some((candidate) => {
    const e = candidate as { code?: unknown; errmsg?: unknown; message?: unknown; keyPattern?: unknown };
    if (e?.code !== DUPLICATE_KEY) return false;
    const keyPattern = e.keyPattern as Record<string, unknown> | undefined;
    return Boolean(keyPattern?.panHash) || String(e.errmsg ?? e.message ?? '').includes(PAN_INDEX);
  });
}

/**
 * The distributed runtime's card vault: its own MongoDB database (`cip_<environment>_vault`, never the
 * scopes' `cip_<scope>`, so that a copy or a role of the event and read-model databases carries no card
 * secrets, sealed or not), on a replica set.
 *
 * Why transactions, on a replica set, rather than conditional writes on a standalone server: a new card
 * must be stored only while its KEK is the active one, and a KEK forgotten only while no card uses it.
 * That is a check on one collection (the registry) and a write on another (the cards), in both
 * directions, which no single-document conditional write can make atomic; an insert-then-verify scheme
 * would leave, on a crash between the two, a card under a KEK the ring may drop. So:
 * - every transaction that relies on or changes the active KEK (a batch of new cards, `activateKek`,
 *   `retireUnreferencedKeks`) first increments the registry document's `version`. MongoDB transactions are
 *   snapshot-isolated: two that write the same document cannot both commit (the second gets a
 *   WriteConflict, labelled TransientTransactionError, and the driver's `withTransaction` runs it again on a
 *   fresh snapshot). Writing the registry, not only reading it, is what rules out write skew (a batch that
 *   read "kek-1 active" committing after a rotation switched it and forgot kek-1). It is the store's
 *   write lock of the port, across processes;
 * - PAN uniqueness is the unique index on `panHash`: each card is an upsert on its hash that only inserts
 *   (`$setOnInsert`), so a PAN already stored is matched and reported `duplicate_pan`; a PAN another
 *   process commits after the batch's snapshot makes the batch fail, and it is written again (it then sees
 *   that card). A vault ref (`_id`) stored already is looked up in the transaction first and reported
 *   `existing_ref` (a retried issue for the same card), as in SQLite; the registry's lock orders that
 *   lookup with other processes' commits;
 * - every write is acknowledged with `{w: 'majority', journal: true}`, transactions included (their commit
 *   carries it), so an acknowledged card survives the loss of the primary. A replica set also gives
 *   retryable writes: a reveal link's use whose answer a network error lost is retried by the driver and
 *   answered from the server's record of the first attempt, not refused as used.
 *
 * New cards are group-committed like the SQLite adapter's: puts made while a commit is in flight are
 * written together in the next transaction (one majority journal commit for all of them), and each put
 * resolves only once that commit is acknowledged.
 */
export class MongoCardVaultStore implements CardVaultStore {
  private readonly cards: Collection<CardDocument>;
  private readonly registry: Collection<RegistryDocument>;
  private readonly links: Collection<LinkDocument>;
  private queue: PendingPut[] = [];
  private flushing: Promise<void> | null = null;
  private closed = false;

  private constructor(
    private readonly connection: Connection,
    private readonly options: MongoCardVaultStoreOptions,
  ) {
    this.cards = connection.collection<CardDocument>(CARDS);
    this.registry = connection.collection<RegistryDocument>(REGISTRY);
    this.links = connection.collection<LinkDocument>(LINKS);
  }

  /**
   * The store on `connection`'s database: checks that the server is a replica set member (or mongos), and
   * creates the indexes and the registry document (both idempotent, safe from concurrent processes).
   */
  static async open(
    connection: Connection,
    options: MongoCardVaultStoreOptions = {},
  ): Promise<MongoCardVaultStore> {
    const store = new MongoCardVaultStore(connection, options);
    try {
      await store.prepare();
    } catch (error) {
      if (options.closesConnection) await connection.close();
      throw error;
    }
    return store;
  }

  private async prepare(): Promise<void> {
    const hello = (await this.connection.getClient().db('admin').command({ hello: 1 })) as {
      setName?: string;
      msg?: string;
    };
    if (!hello.setName && hello.msg !== 'isdbgrid') {
      throw new Error(
        'The card vault store needs MongoDB transactions: connect it to a replica set (a single-node one ' +
          'will do, see docker-compose.yml), not a standalone server',
      );
    }
    // Collections and indexes exist before any transaction uses them.
    await this.cards.createIndexes([
      { key: { panHash: 1 }, name: PAN_INDEX, unique: true },
      // The registry's counts and `retireUnreferencedKeks`' check look cards up by KEK.
      { key: { kekId: 1 }, name: 'kek_id' },
    ]);
    await this.links.createIndexes([{ key: { expiresAt: 1 }, name: 'expires_at' }]);
    try {
      await this.registry.updateOne(
        { _id: REGISTRY_ID },
        { $setOnInsert: { active: null, keks: [], version: 0 } },
        { upsert: true, writeConcern: DURABLE },
      );
    } catch (error) {
      // Another process created it at the same moment: it exists, which is all this wanted.
      if ((error as { code?: unknown }).code !== DUPLICATE_KEY) throw error;
    }
  }

  put(card: SealedCard): Promise<PutOutcome> {
    if (this.closed) return Promise.reject(new Error('The card vault store is closed'));
    return new Promise<PutOutcome>((resolve, reject) => {
      this.queue.push({ card, resolve, reject });
      this.flushing ??= this.flush();
    });
  }

  /**
   * Commits the queued puts, batch after batch, until none is left. One batch at a time: two of this
   * process would only conflict on the registry document.
   */
  private async flush(): Promise<void> {
    // A turn of the event loop first, so that the puts of the same burst share the first commit.
    await new Promise((resolve) => setImmediate(resolve));
    while (this.queue.length > 0) {
      const batch = this.queue.splice(0, MAX_BATCH);
      let outcomes: PutOutcome[];
      try {
        outcomes = await this.commit(batch.map((put) => put.card));
      } catch (error) {
        for (const put of batch) put.reject(error);
        continue;
      }
      batch.forEach((put, i) => put.resolve(outcomes[i]));
      this.options.onCommit?.(batch.length);
    }
    // No await between the loop's last check and this: a put made from now on starts a new flush.
    this.flushing = null;
  }

  private async commit(batch: SealedCard[]): Promise<PutOutcome[]> {
    for (let attempt = 1; ; attempt++) {
      try {
        return await this.transaction(async (session) => {
          const { active } = await this.lockRegistry(session);
          const outcomes = batch.map((card): PutOutcome => (card.kekId === active ? 'stored' : 'stale_kek'));
          // A vault reference stored already (or twice in this batch): the stored card stands.
          const refs = batch.map((card) => card.vaultRef);
          const stored = new Set(
            (
              await this.cards.find({ _id: { $in: refs } }, { session, projection: { _id: 1 } }).toArray()
            ).map((doc) => doc._id),
          );
          batch.forEach((card, i) => {
            if (outcomes[i] !== 'stored') return;
            if (stored.has(card.vaultRef)) outcomes[i] = 'existing_ref';
            stored.add(card.vaultRef);
          });
          const writes = batch.flatMap((card, i) => (outcomes[i] === 'stored' ? [{ card, i }] : []));
          if (writes.length === 0) return outcomes;
          const result = await this.cards.bulkWrite(
            writes.map(({ card: { vaultRef, panHash, ...rest } }) => ({
              updateOne: {
                filter: { panHash },
                update: { $setOnInsert: { _id: vaultRef, ...rest } },
                upsert: true,
              },
            })),
            // Ordered: two cards of the batch with one PAN, the first is stored and the second matches it.
            { session, ordered: true },
          );
          writes.forEach(({ i }, op) => {
            if (result.upsertedIds[op] === undefined) outcomes[i] = 'duplicate_pan';
          });
          return outcomes;
        });
      } catch (error) {
        if (!isDuplicatePan(error) || attempt >= DUPLICATE_PAN_RETRIES) throw error;
      }
    }
  }

  async get(vaultRef: string): Promise<SealedCard | null> {
    const doc = await this.cards.findOne({ _id: vaultRef });
    return doc ? toCard(doc) : null;
  }

  async findByPanHash(panHash: string): Promise<SealedCard | null> {
    const doc = await this.cards.findOne({ panHash });
    return doc ? toCard(doc) : null;
  }

  async setPvv(vaultRef: string, sealedPvv: string): Promise<boolean> {
    const { matchedCount } = await this.cards.updateOne(
      { _id: vaultRef },
      { $set: { sealedPvv } },
      { writeConcern: DURABLE },
    );
    return matchedCount === 1;
  }

  async activeKekId(): Promise<string | null> {
    return (await this.registry.findOne({ _id: REGISTRY_ID }))?.active ?? null;
  }

  async registeredKeks(): Promise<RegisteredKek[]> {
    // One snapshot for the registry and the counts (a read-only transaction takes no lock).
    return this.transaction(async (session) => {
      const registry = await this.registry.findOne({ _id: REGISTRY_ID }, { session });
      const keks = registry?.keks ?? [];
      const counts = await this.cards
        .aggregate<{ _id: string; cards: number }>(
          [
            { $match: { kekId: { $in: keks.map((kek) => kek.kekId) } } },
            { $group: { _id: '$kekId', cards: { $sum: 1 } } },
          ],
          { session },
        )
        .toArray();
      const cards = new Map(counts.map((count) => [count._id, count.cards]));
      return keks
        .map(({ kekId, status }) => ({ kekId, status, cards: cards.get(kekId) ?? 0 }))
        .sort((a, b) => byCodeUnit(a.status, b.status) || byCodeUnit(a.kekId, b.kekId));
    });
  }

  async activateKek(kekId: string, whileLocked?: () => void): Promise<void> {
    // The callback writes a new random key under `kekId` to the ring: run again by a retried transaction,
    // it would replace the key. Once it has run the key exists, which is all a retry needs.
    let ranWhileLocked = false;
    await this.transaction(async (session) => {
      const registry = await this.lockRegistry(session);
      if (!ranWhileLocked) {
        whileLocked?.();
        ranWhileLocked = true;
      }
      const status = new Map(registry.keks.map((kek) => [kek.kekId, kek.status]));
      // Cards of a store from before the registry: their KEKs are registered as retiring.
      const inUse = await this.cards.distinct('kekId', { kekId: { $ne: kekId } }, { session });
      for (const id of inUse) if (!status.has(id)) status.set(id, 'retiring');
      for (const [id, current] of status) if (current === 'active') status.set(id, 'retiring');
      status.set(kekId, 'active');
      await this.registry.updateOne(
        { _id: REGISTRY_ID },
        { $set: { active: kekId, keks: [...status].map(([id, s]) => ({ kekId: id, status: s })) } },
        { session },
      );
    });
  }

  async rewrapBatch(toKekId: string, limit: number, rewrap: (card: SealedCard) => string): Promise<number> {
    // `rewrap` only computes: a retried transaction may call it again for the same card.
    return this.transaction(async (session) => {
      const docs = await this.cards
        .find({ kekId: { $ne: toKekId } }, { session })
        .sort({ _id: 1 })
        .limit(limit)
        .toArray();
      if (docs.length === 0) return 0;
      await this.cards.bulkWrite(
        docs.map((doc) => ({
          updateOne: {
            filter: { _id: doc._id, kekId: doc.kekId },
            update: { $set: { kekId: toKekId, wrappedKey: rewrap(toCard(doc)) } },
          },
        })),
        { session, ordered: true },
      );
      return docs.length;
    });
  }

  async retireUnreferencedKeks(whileLocked?: (registered: string[]) => void): Promise<{ retired: string[] }> {
    // The callback keeps the ring's keys of `registered` and drops the others: run again by a retried
    // transaction, it does the same with the fresh answer.
    return this.transaction(async (session) => {
      const registry = await this.lockRegistry(session);
      const retiring = registry.keks.filter((kek) => kek.status === 'retiring').map((kek) => kek.kekId);
      const referenced = new Set(
        retiring.length > 0
          ? await this.cards.distinct('kekId', { kekId: { $in: retiring } }, { session })
          : [],
      );
      const retired = retiring.filter((id) => !referenced.has(id));
      const keks = registry.keks.filter((kek) => !retired.includes(kek.kekId));
      await this.registry.updateOne({ _id: REGISTRY_ID }, { $set: { keks } }, { session });
      whileLocked?.(keks.map((kek) => kek.kekId));
      return { retired };
    });
  }

  async addRevealLink(link: RevealLink): Promise<void> {
    const { tokenHash, ...rest } = link;
    // Links that expired are of no use any more, used or not: they go as new ones come (as in SQLite; not
    // a TTL index, whose monitor follows the server's clock rather than the links' `now`).
    await this.links.deleteMany({ expiresAt: { $lte: link.createdAt } }, { writeConcern: DURABLE });
    await this.links.insertOne({ _id: tokenHash, ...rest, usedAt: null }, { writeConcern: DURABLE });
  }

  async useRevealLink(tokenHash: string, now: string): Promise<RevealLink | null> {
    // One document, one atomic findAndModify: of concurrent uses, exactly one matches `usedAt: null`.
    // ISO-8601 UTC strings of one format order as the instants they name, as SQLite compares them.
    const doc = await this.links.findOneAndUpdate(
      { _id: tokenHash, usedAt: null, expiresAt: { $gt: now } },
      { $set: { usedAt: now } },
      { returnDocument: 'after', writeConcern: DURABLE },
    );
    return doc ? toLink(doc) : null;
  }

  async findRevealLink(tokenHash: string, now: string): Promise<RevealLink | null> {
    const doc = await this.links.findOne({ _id: tokenHash, usedAt: null, expiresAt: { $gt: now } });
    return doc ? toLink(doc) : null;
  }

  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    // Puts already queued are committed (and acknowledged) before the store closes.
    await this.flushing;
    if (this.options.closesConnection) await this.connection.close();
  }

  /**
   * Increments the registry's version inside `session`'s transaction: from then on, any other
   * transaction writing the registry conflicts with this one, and only one of them commits.
   */
  private async lockRegistry(session: ClientSession): Promise<RegistryDocument> {
    const registry = await this.registry.findOneAndUpdate(
      { _id: REGISTRY_ID },
      { $inc: { version: 1 } },
      { session, returnDocument: 'after' },
    );
    if (!registry) throw new Error('The card vault KEK registry is missing');
    return registry;
  }

  /**
   * Runs `work` in a transaction (snapshot reads, majority journaled commit). The driver runs it again on
   * a TransientTransactionError (a write conflict, a failover) and retries an unknown commit result, so
   * `work` must be safe to run more than once and must not swallow errors.
   */
  private async transaction<T>(work: (session: ClientSession) => Promise<T>): Promise<T> {
    const session = await this.connection.startSession();
    try {
      return await session.withTransaction(() => work(session), TRANSACTION);
    } finally {
      await session.endSession();
    }
  }
}

export interface MongoCardVaultStoreOptions {
  /** Whether `close` closes the connection too (the store opened it); otherwise its owner does. */
  closesConnection?: boolean;
  /** Observes each group commit of new cards: how many puts it acknowledged (metrics, tests). */
  onCommit?: (puts: number) => void;
}
