import { openSqliteDatabase } from '@cip/shared/runtime';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { staffCredentialStoreContract } from './contract/staff-credential-store.contract';
import { SqliteStaffCredentialStore, staffCredentialsFile } from './sqlite-staff-credential-store';

describe('staff credential store contract: SQLite (embedded)', () => {
  const dir = mkdtempSync(join(tmpdir(), 'cip-staff-credentials-'));
  const file = staffCredentialsFile(dir);
  staffCredentialStoreContract({
    open: async (masterKey) => SqliteStaffCredentialStore.open(file, masterKey),
    rawDump: async () => {
      const db = openSqliteDatabase(file);
      try {
        const tables = ['credentials', 'invitations', 'sessions'];
        return JSON.stringify(tables.map((table) => db.prepare(`SELECT * FROM ${table}`).all()));
      } finally {
        db.close();
      }
    },
    cleanup: async () => rmSync(dir, { recursive: true, force: true }),
  });
});
