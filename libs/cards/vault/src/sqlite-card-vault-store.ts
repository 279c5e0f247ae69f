import { openSqliteDatabase, SqliteCheckpointer, type SqliteDatabase } from '@cip/shared/runtime';
import type { Statement } from 'better-sqlite3';
import type { CardVaultStore, SealedCard } from './card-vault-store.port';

interface Row {
  vault_ref: string;
  pan_hash: string;
  kek_id: string;
  wrapped_key: string;
  sealed_pan: string;
  sealed_pvv: string | null;
  exp_month: number;
  exp_year: number;
  created_at: string;
}

const toCard = (row: Row): SealedCard => ({
  vaultRef: row.vault_ref,
  panHash: row.pan_hash,
  kekId: row.kek_id,
  wrappedKey: row.wrapped_key,
  sealedPan: row.sealed_pan,
  sealedPvv: row.sealed_pvv,
  expMonth: row.exp_month,
  expYear: row.exp_year,
  createdAt: row.created_at,
});

/**
 * The embedded runtime's card vault: a SQLite file of its own (`DATA_DIR/<environment>-vault.sqlite`,
 * 0600, WAL, `synchronous=FULL`, `secure_delete` as every store file, see `openSqliteDatabase`), never the
 * event store's, so a copy of the log carries no card secrets, sealed or not. PAN uniqueness is the unique
 * index on `pan_hash`, which holds across every connection to the file (the platform and the CLI).
 */
export class SqliteCardVaultStore implements CardVaultStore {
  private readonly insert: Statement;
  private readonly select: Statement;
  private readonly updatePvv: Statement;
  private readonly selectOthers: Statement;
  private readonly updateKey: Statement;

  constructor(
    private readonly db: SqliteDatabase,
    /** Runs the file's WAL checkpoints off the request thread (its connection has automatic ones off). */
    private readonly checkpointer?: SqliteCheckpointer,
  ) {
    db.exec(`
      CREATE TABLE IF NOT EXISTS cards (
        vault_ref   TEXT PRIMARY KEY,
        pan_hash    TEXT NOT NULL UNIQUE,
        kek_id      TEXT NOT NULL,
        wrapped_key TEXT NOT NULL,
        sealed_pan  TEXT NOT NULL,
        sealed_pvv  TEXT,
        exp_month   INTEGER NOT NULL,
        exp_year    INTEGER NOT NULL,
        created_at  TEXT NOT NULL
      ) WITHOUT ROWID;
      CREATE INDEX IF NOT EXISTS cards_by_kek ON cards (kek_id);
    `);
    // Only a repeated PAN is an expected conflict (the caller draws another); a repeated vault_ref is a bug
    // and fails loudly, since the primary key's conflict is not the one handled here.
    this.insert = db.prepare(
      `INSERT INTO cards (vault_ref, pan_hash, kek_id, wrapped_key, sealed_pan, sealed_pvv, exp_month,
         exp_year, created_at)
       VALUES (@vaultRef, @panHash, @kekId, @wrappedKey, @sealedPan, @sealedPvv, @expMonth, @expYear,
         @createdAt)
       ON CONFLICT (pan_hash) DO NOTHING`,
    );
    this.select = db.prepare('SELECT * FROM cards WHERE vault_ref = ?');
    this.updatePvv = db.prepare('UPDATE cards SET sealed_pvv = ? WHERE vault_ref = ?');
    this.selectOthers = db.prepare('SELECT * FROM cards WHERE kek_id <> ? ORDER BY vault_ref LIMIT ?');
    this.updateKey = db.prepare(
      'UPDATE cards SET kek_id = ?, wrapped_key = ? WHERE vault_ref = ? AND kek_id = ?',
    );
  }

  /**
   * Opens the store's file. Its WAL is checkpointed off the request thread by a worker of its own, unless
   * the runtime's checkpointer already runs this file (`checkpointedElsewhere`).
   */
  static open(path: string, options: { checkpointedElsewhere?: boolean } = {}): SqliteCardVaultStore {
    const db = openSqliteDatabase(path);
    return new SqliteCardVaultStore(
      db,
      options.checkpointedElsewhere ? undefined : new SqliteCheckpointer([path]),
    );
  }

  async put(card: SealedCard): Promise<'stored' | 'duplicate_pan'> {
    return this.insert.run(card).changes === 1 ? 'stored' : 'duplicate_pan';
  }

  async get(vaultRef: string): Promise<SealedCard | null> {
    const row = this.select.get(vaultRef) as Row | undefined;
    return row ? toCard(row) : null;
  }

  async setPvv(vaultRef: string, sealedPvv: string): Promise<boolean> {
    return this.updatePvv.run(sealedPvv, vaultRef).changes === 1;
  }

  async listWrappedUnderOtherKeks(kekId: string, limit: number): Promise<SealedCard[]> {
    return (this.selectOthers.all(kekId, limit) as Row[]).map(toCard);
  }

  async rewrap(vaultRef: string, fromKekId: string, toKekId: string, wrappedKey: string): Promise<boolean> {
    return this.updateKey.run(toKekId, wrappedKey, vaultRef, fromKekId).changes === 1;
  }

  async close(): Promise<void> {
    await this.checkpointer?.stop();
    if (this.db.open) this.db.close();
  }
}
