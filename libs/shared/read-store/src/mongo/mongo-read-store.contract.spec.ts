import { describeWhenConfigured } from '@cip/shared/testing';
import mongoose, { Connection } from 'mongoose';
import { randomBytes } from 'node:crypto';
import { readStoreContract } from '../contract/read-store.contract';
import { MongoReadStore } from './mongo-read-store';

describeWhenConfigured('MONGO_URL', 'read store contract: MongoDB', (url) => {
  jest.setTimeout(30_000);
  let connection: Connection;
  readStoreContract({
    open: async () => {
      const dbName = `cip_contract_${randomBytes(6).toString('hex')}`;
      connection = await mongoose.createConnection(url, { dbName }).asPromise();
      return new MongoReadStore(connection);
    },
    cleanup: async () => {
      await connection.dropDatabase();
      await connection.close();
    },
  });
});
