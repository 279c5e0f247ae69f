import { describeWhenConfigured } from '@cip/shared/testing';
import mongoose, { Connection } from 'mongoose';
import { randomBytes } from 'node:crypto';
import { personalDataKeyStoreContract } from '../contract/personal-data-key-store.contract';
import { MongoPersonalDataKeyStore } from './mongo-personal-data-key-store';

describeWhenConfigured('MONGO_URL', 'personal-data key store contract: MongoDB', (url) => {
  jest.setTimeout(30_000);
  let connection: Connection;
  personalDataKeyStoreContract({
    open: async () => {
      const dbName = `cip_contract_${randomBytes(6).toString('hex')}`;
      connection = await mongoose.createConnection(url, { dbName }).asPromise();
      return new MongoPersonalDataKeyStore(connection);
    },
    cleanup: async () => {
      await connection.dropDatabase();
      await connection.close();
    },
  });
});
