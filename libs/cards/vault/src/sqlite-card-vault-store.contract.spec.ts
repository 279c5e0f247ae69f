import { mkdtempSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { cardVaultStoreContract } from './contract/card-vault-store.contract';
import { SqliteCardVaultStore } from './sqlite-card-vault-store';

describe('card vault store contract: SQLite (embedded)', () => {
  const dir = mkdtempSync(join(tmpdir(), 'cip-vault-'));
  const path = join(dir, 'sandbox-vault.sqlite');
  cardVaultStoreContract({
    open: async () => SqliteCardVaultStore.open(path),
    cleanup: async () => rmSync(dir, { recursive: true, force: true }),
  });

  it('keeps the file readable by the platform user only', () => {
    expect(statSync(path).mode & 0o777).toBe(0o600);
  });
});
