import { randomBytes } from 'node:crypto';
import { Pool } from 'pg';
import { openPostgresCardVault } from './open-card-vault';
import { crashVaultKeys, describeVaultCrash } from './testing/vault-crash-suite';

describeVaultCrash({
  variable: 'DATABASE_URL',
  name: 'PostgreSQL',
  opener: 'openPostgresCardVault',
  open: openPostgresCardVault,
  options: (url) => ({
    databaseUrl: url,
    environment: 'sandbox' as const,
    schema: `card_vault_e2e_${randomBytes(6).toString('hex')}`,
    configured: crashVaultKeys(),
  }),
  async drop(url, options) {
    const admin = new Pool({ connectionString: url, max: 1 });
    await admin.query(`DROP SCHEMA IF EXISTS ${options.schema} CASCADE`);
    await admin.end();
  },
});
