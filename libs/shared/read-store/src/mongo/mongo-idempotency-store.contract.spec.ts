import { describeWhenConfigured } from '@cip/shared/testing';
import mongoose, { Connection } from 'mongoose';
import { randomBytes } from 'node:crypto';
import { idempotencyStoreContract } from '../contract/idempotency-store.contract';
import { MongoIdempotencyStore } from './mongo-idempotency-store';

describeWhenConfigured('MONGO_URL', 'idempotency store contract: MongoDB', (url) => {
  jest.setTimeout(30_000);
  let connection: Connection;
  idempotencyStoreContract({
    open: async () => {
      const dbName = `cip_contract_${randomBytes(6).toString('hex')}`;
      connection = await mongoose.createConnection(url, { dbName }).asPromise();
      // No TTL index: the suite's clock is fixed in the past, which MongoDB's TTL monitor would act on.
      return new MongoIdempotencyStore(connection);
    },
    cleanup: async () => {
      await connection.dropDatabase();
      await connection.close();
    },
  });
});
