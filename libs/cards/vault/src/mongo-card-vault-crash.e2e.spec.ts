import mongoose from 'mongoose';
import { randomBytes } from 'node:crypto';
import { openMongoCardVault } from './open-card-vault';
import { crashVaultKeys, describeVaultCrash } from './testing/vault-crash-suite';

describeVaultCrash({
  variable: 'MONGO_URL',
  name: 'MongoDB',
  opener: 'openMongoCardVault',
  open: openMongoCardVault,
  options: (url) => ({
    mongoUrl: url,
    environment: 'sandbox' as const,
    database: `cip_e2e_vault_${randomBytes(6).toString('hex')}`,
    configured: crashVaultKeys(),
  }),
  async drop(url, options) {
    const connection = await mongoose.createConnection(url, { dbName: options.database }).asPromise();
    await connection.dropDatabase();
    await connection.close();
  },
});
