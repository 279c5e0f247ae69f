import { describeWhenConfigured } from '@cip/shared/testing';
import mongoose from 'mongoose';
import { randomBytes } from 'node:crypto';
import { cardVaultStoreContract } from './contract/card-vault-store.contract';
import { MongoCardVaultStore } from './mongo-card-vault-store';

describeWhenConfigured('MONGO_URL', 'card vault store contract: MongoDB', (url) => {
  jest.setTimeout(30_000);
  // One database for the suite; each open is a new connection (the store closes it), so a reopen reads
  // only what the server acknowledged.
  const dbName = `cip_contract_vault_${randomBytes(6).toString('hex')}`;
  const connect = () => mongoose.createConnection(url, { dbName }).asPromise();
  cardVaultStoreContract({
    open: async () => MongoCardVaultStore.open(await connect(), { closesConnection: true }),
    cleanup: async () => {
      const connection = await connect();
      await connection.dropDatabase();
      await connection.close();
    },
  });
});
