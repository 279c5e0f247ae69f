import type { Collection, Connection } from 'mongoose';
import type { PersonalDataKeyStore, SubjectKey } from './personal-data-key-store.port';

interface KeyDocument {
  _id: string;
  wrappedKey: string | null;
  createdAt: string;
  erasedAt: string | null;
}

const COLLECTION = 'personal_data_keys';
const DUPLICATE_KEY = 11000;

const toKey = (doc: KeyDocument): SubjectKey =>
  doc.wrappedKey !== null
    ? { status: 'active', wrappedKey: doc.wrappedKey }
    : { status: 'erased', erasedAt: doc.erasedAt ?? '' };

/**
 * The distributed runtime's key store: one document per subject in the scope's MongoDB database (the
 * event log is in EventStoreDB, so the keys are outside it). Writes are acknowledged by a majority and
 * journaled, since events sealed with a key are appended as soon as it is stored. Erasure unsets the key:
 * MongoDB's own files and oplog keep old versions until compaction and rollover, which the deployment's
 * retention settings bound (deploy/README.md).
 */
export class MongoPersonalDataKeyStore implements PersonalDataKeyStore {
  private readonly keys: Collection<KeyDocument>;

  /** @param connection a connection to the scope's database; its owner closes it. */
  constructor(connection: Connection) {
    this.keys = connection.collection<KeyDocument>(COLLECTION);
  }

  async get(subjectId: string): Promise<SubjectKey | null> {
    const doc = await this.keys.findOne({ _id: subjectId });
    return doc ? toKey(doc) : null;
  }

  async create(subjectId: string, wrappedKey: string, at: string): Promise<SubjectKey> {
    // An upsert that only ever inserts: the unique `_id` makes one of concurrent creations win; a loser
    // either matches the winner's document or fails with a duplicate key, and then reads it.
    try {
      const doc = await this.keys.findOneAndUpdate(
        { _id: subjectId },
        { $setOnInsert: { wrappedKey, createdAt: at, erasedAt: null } },
        { upsert: true, returnDocument: 'after', writeConcern: { w: 'majority', j: true } },
      );
      if (doc) return toKey(doc);
    } catch (error) {
      if ((error as { code?: unknown }).code !== DUPLICATE_KEY) throw error;
    }
    const stored = await this.keys.findOne({ _id: subjectId });
    if (!stored) throw new Error(`The key of ${subjectId} was not stored`);
    return toKey(stored);
  }

  async erase(subjectId: string, at: string): Promise<void> {
    await this.keys.updateOne(
      { _id: subjectId },
      [
        {
          $set: {
            wrappedKey: null,
            createdAt: { $ifNull: ['$createdAt', at] },
            erasedAt: { $ifNull: ['$erasedAt', at] },
          },
        },
      ],
      { upsert: true, writeConcern: { w: 'majority', j: true } },
    );
  }

  async close(): Promise<void> {
    // The connection belongs to the infrastructure that opened it.
  }
}
