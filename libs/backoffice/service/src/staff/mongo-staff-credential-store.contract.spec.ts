import { describeWhenConfigured } from '@cip/shared/testing';
import mongoose from 'mongoose';
import { randomBytes } from 'node:crypto';
import { staffCredentialStoreContract } from './contract/staff-credential-store.contract';
import { mongoStaffCredentials } from './open-staff-credential-store';

describeWhenConfigured('MONGO_URL', 'staff credential store contract: MongoDB', (url) => {
  jest.setTimeout(30_000);
  // One database for the suite; each open is a new connection (the store closes it), so a reopen reads
  // only what the server acknowledged.
  const database = `cip_contract_staff_${randomBytes(6).toString('hex')}`;
  const connect = () => mongoose.createConnection(url, { dbName: database }).asPromise();
  staffCredentialStoreContract({
    open: mongoStaffCredentials({ mongoUrl: url, database }),
    rawDump: async () => {
      const connection = await connect();
      try {
        const names = ['staff_credentials', 'staff_invitations', 'staff_sessions'];
        const all = await Promise.all(names.map((name) => connection.collection(name).find().toArray()));
        return JSON.stringify(all);
      } finally {
        await connection.close();
      }
    },
    cleanup: async () => {
      const connection = await connect();
      await connection.dropDatabase();
      await connection.close();
    },
  });
});
