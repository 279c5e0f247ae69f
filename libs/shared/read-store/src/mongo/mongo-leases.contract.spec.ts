import { describeWhenConfigured } from '@cip/shared/testing';
import mongoose, { Connection } from 'mongoose';
import { randomBytes } from 'node:crypto';
import { leasesContract } from '../contract/leases.contract';
import { MongoLeases } from './mongo-leases';

describeWhenConfigured('MONGO_URL', 'leases contract: MongoDB', (url) => {
  jest.setTimeout(30_000);
  let connection: Connection;
  leasesContract({
    open: async () => {
      const dbName = `cip_contract_${randomBytes(6).toString('hex')}`;
      connection = await mongoose.createConnection(url, { dbName }).asPromise();
      return new MongoLeases(connection);
    },
    cleanup: async () => {
      await connection.dropDatabase();
      await connection.close();
    },
  });
});
