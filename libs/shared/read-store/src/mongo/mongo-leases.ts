import type { Collection, Connection } from 'mongoose';
import type { LeaseTerm, Leases } from '../leases.port';

interface LeaseRecord {
  _id: string;
  holder: string | null;
  fencingToken: number;
  expiresAt: Date;
}

const COLLECTION = 'leases';
const DUPLICATE_KEY = 11000;

/**
 * Leases on MongoDB, one document per lease. An acquisition is one `findOneAndUpdate` upsert whose filter only
 * matches a lease that may be granted (free, expired or the same holder's): the unique `_id` makes exactly one
 * of concurrent acquisitions insert or update it, and the others fail with a duplicate key (refused). Expiry
 * is the server's clock (`$$NOW`), never a process's.
 */
export class MongoLeases implements Leases {
  private readonly leases: Collection<LeaseRecord>;

  /** @param connection a connection to the control scope's database; its owner closes it. */
  constructor(connection: Connection) {
    this.leases = connection.collection<LeaseRecord>(COLLECTION);
  }

  async acquire(name: string, holder: string, ttlMs: number): Promise<LeaseTerm | null> {
    const running = { $and: [{ $eq: ['$holder', holder] }, { $gt: ['$expiresAt', '$$NOW'] }] };
    try {
      const granted = await this.leases.findOneAndUpdate(
        {
          _id: name,
          $or: [{ holder: null }, { holder }, { $expr: { $lte: ['$expiresAt', '$$NOW'] } }],
        },
        [
          {
            $set: {
              fencingToken: {
                $cond: [running, '$fencingToken', { $add: [{ $ifNull: ['$fencingToken', 0] }, 1] }],
              },
              holder,
              expiresAt: { $add: ['$$NOW', Math.ceil(ttlMs)] },
            },
          },
        ],
        { upsert: true, returnDocument: 'after', includeResultMetadata: false },
      );
      return granted ? { fencingToken: granted.fencingToken } : null;
    } catch (error) {
      if ((error as { code?: unknown }).code === DUPLICATE_KEY) return null;
      throw error;
    }
  }

  async release(name: string, holder: string): Promise<void> {
    await this.leases.updateOne({ _id: name, holder }, [{ $set: { holder: null, expiresAt: '$$NOW' } }]);
  }
}
