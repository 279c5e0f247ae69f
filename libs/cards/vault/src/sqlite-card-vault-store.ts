import {
  GroupCommit,
  openSqliteDatabase,
  SqliteCheckpointer,
  type SqliteDatabase,
} from '@cip/shared/runtime';
import type { Statement } from 'better-sqlite3';
import type {
  CardVaultStore,
  PutOutcome,
  RegisteredKek,
  RevealLink,
  SealedCard,
} from './card-vault-store.port';

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

interface LinkRow {
  token_hash: string;
  vault_ref: string;
  card_id: string;
  distributor_id: string;
  request_id: string;
  created_at: string;
  expires_at: string;
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

const toLink = (row: LinkRow): RevealLink => ({
  tokenHash: row.token_hash,
  vaultRef: row.vault_ref,
  cardId: row.card_id,
  distributorId: row.distributor_id,
  requestId: row.request_id,
  createdAt: row.created_at,
  expiresAt: row.expires_at,
});

/**
 * The embedded runtime's card vault: a SQLite file of its own (`DATA_DIR/<environment>-vault.sqlite`,
 * 0600, WAL, `synchronous=FULL`, `secure_delete` as every store file, see `openSqliteDatabase`), never the
 * event store's, so a copy of the log carries no card secrets, sealed or not. PAN uniqueness is the unique
 * index on `pan_hash`, and the active KEK is a row of `key_encryption_keys`: both hold across every
 * connection to the file (the platform and the CLI), since each write checks them inside its transaction.
 *
 * New cards are group-committed, as the event store's appends are: puts made while a commit is pending
 * are queued and written together in one transaction on the next turn of the event loop, so one fsync
 * acknowledges all of them, and each put resolves only once that commit is durable.
 */
export class SqliteCardVaultStore implements CardVaultStore {
  private readonly puts: GroupCommit<SealedCard, PutOutcome>;
  private readonly insert: Statement;
  private readonly select: Statement;
  private readonly selectByPanHash: Statement;
  private readonly updatePvv: Statement;
  private readonly selectActiveKek: Statement;
  private readonly selectOthers: Statement;
  private readonly updateKey: Statement;
  private readonly insertLink: Statement;
  private readonly deleteExpiredLinks: Statement;
  private readonly consumeLink: Statement;
  private readonly selectUsableLink: Statement;

  constructor(
    private readonly db: SqliteDatabase,
    /** Runs the file's WAL checkpoints off the request thread (its connection has automatic ones off). */
    private readonly checkpointer?: SqliteCheckpointer,
    /** Observes each group commit of new cards: how many puts it acknowledged (tests, benchmarks). */
    private readonly onCommit?: (puts: number) => void,
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
      CREATE TABLE IF NOT EXISTS key_encryption_keys (
        kek_id TEXT PRIMARY KEY,
        status TEXT NOT NULL CHECK (status IN ('active', 'retiring'))
      ) WITHOUT ROWID;
      CREATE UNIQUE INDEX IF NOT EXISTS one_active_kek ON key_encryption_keys (status) WHERE status = 'active';
      CREATE TABLE IF NOT EXISTS reveal_links (
        token_hash     TEXT PRIMARY KEY,
        vault_ref      TEXT NOT NULL,
        card_id        TEXT NOT NULL,
        distributor_id TEXT NOT NULL,
        request_id     TEXT NOT NULL,
        created_at     TEXT NOT NULL,
        expires_at     TEXT NOT NULL,
        used_at        TEXT
      ) WITHOUT ROWID;
    `);
    // A repeated PAN is an expected conflict (the caller draws another); a repeated vault_ref is looked for
    // first (`existing_ref`), so the primary key's conflict never reaches this insert.
    this.insert = db.prepare(
      `INSERT INTO cards (vault_ref, pan_hash, kek_id, wrapped_key, sealed_pan, sealed_pvv, exp_month,
         exp_year, created_at)
       VALUES (@vaultRef, @panHash, @kekId, @wrappedKey, @sealedPan, @sealedPvv, @expMonth, @expYear,
         @createdAt)
       ON CONFLICT (pan_hash) DO NOTHING`,
    );
    this.select = db.prepare('SELECT * FROM cards WHERE vault_ref = ?');
    this.selectByPanHash = db.prepare('SELECT * FROM cards WHERE pan_hash = ?');
    this.updatePvv = db.prepare('UPDATE cards SET sealed_pvv = ? WHERE vault_ref = ?');
    this.selectActiveKek = db
      .prepare("SELECT kek_id FROM key_encryption_keys WHERE status = 'active'")
      .pluck();
    this.selectOthers = db.prepare(
      'SELECT * FROM cards WHERE kek_id <> ? ORDER BY vault_ref LIMIT CAST(? AS INTEGER)',
    );
    this.updateKey = db.prepare('UPDATE cards SET kek_id = ?, wrapped_key = ? WHERE vault_ref = ?');
    this.insertLink = db.prepare(
      `INSERT INTO reveal_links (token_hash, vault_ref, card_id, distributor_id, request_id, created_at,
         expires_at)
       VALUES (@tokenHash, @vaultRef, @cardId, @distributorId, @requestId, @createdAt, @expiresAt)`,
    );
    this.deleteExpiredLinks = db.prepare('DELETE FROM reveal_links WHERE expires_at <= ?');
    this.consumeLink = db.prepare(
      `UPDATE reveal_links SET used_at = @now
       WHERE token_hash = @tokenHash AND used_at IS NULL AND expires_at > @now
       RETURNING *`,
    );
    this.selectUsableLink = db.prepare(
      'SELECT * FROM reveal_links WHERE token_hash = @tokenHash AND used_at IS NULL AND expires_at > @now',
    );
    this.puts = new GroupCommit(
      (cards) => this.writeCards(cards),
      (cards) => this.onCommit?.(cards.length),
    );
  }

  /**
   * Opens the store's file. Its WAL is checkpointed off the request thread by a worker of its own, unless
   * the runtime's checkpointer already runs this file (`checkpointedElsewhere`).
   */
  static open(
    path: string,
    options: { checkpointedElsewhere?: boolean; onCommit?: (puts: number) => void } = {},
  ): SqliteCardVaultStore {
    const db = openSqliteDatabase(path);
    return new SqliteCardVaultStore(
      db,
      options.checkpointedElsewhere ? undefined : new SqliteCheckpointer([path]),
      options.onCommit,
    );
  }

  put(card: SealedCard): Promise<PutOutcome> {
    if (!this.db.open) return Promise.reject(new Error('The card vault store is closed'));
    return this.puts.submit(card);
  }

  /**
   * Writes a group commit's cards in one transaction (BEGIN IMMEDIATE: the write lock is taken first, so
   * the active KEK read inside it stays true until the commit). Each put gets its own outcome.
   */
  private writeCards(cards: SealedCard[]): PutOutcome[] {
    return this.db
      .transaction(() => {
        const active = this.selectActiveKek.get() as string | undefined;
        return cards.map((card): PutOutcome => {
          if (card.kekId !== active) return 'stale_kek';
          if (this.select.get(card.vaultRef)) return 'existing_ref';
          return this.insert.run(card).changes === 1 ? 'stored' : 'duplicate_pan';
        });
      })
      .immediate();
  }

  async get(vaultRef: string): Promise<SealedCard | null> {
    const row = this.select.get(vaultRef) as Row | undefined;
    return row ? toCard(row) : null;
  }

  async findByPanHash(panHash: string): Promise<SealedCard | null> {
    const row = this.selectByPanHash.get(panHash) as Row | undefined;
    return row ? toCard(row) : null;
  }

  async setPvv(vaultRef: string, sealedPvv: string): Promise<boolean> {
    return this.updatePvv.run(sealedPvv, vaultRef).changes === 1;
  }

  async activeKekId(): Promise<string | null> {
    return (this.selectActiveKek.get() as string | undefined) ?? null;
  }

  async registeredKeks(): Promise<RegisteredKek[]> {
    return this.db
      .prepare(
        `SELECT k.kek_id AS kekId, k.status AS status,
           (SELECT COUNT(*) FROM cards c WHERE c.kek_id = k.kek_id) AS cards
         FROM key_encryption_keys k ORDER BY k.status, k.kek_id`,
      )
      .all() as RegisteredKek[];
  }

  async activateKek(kekId: string, whileLocked?: () => void): Promise<void> {
    this.db
      .transaction(() => {
        whileLocked?.();
        // Cards of a store from before the registry: their KEKs are registered as retiring.
        this.db
          .prepare(
            `INSERT OR IGNORE INTO key_encryption_keys (kek_id, status)
             SELECT DISTINCT kek_id, 'retiring' FROM cards WHERE kek_id <> ?`,
          )
          .run(kekId);
        this.db
          .prepare(
            "UPDATE key_encryption_keys SET status = 'retiring' WHERE status = 'active' AND kek_id <> ?",
          )
          .run(kekId);
        this.db
          .prepare(
            `INSERT INTO key_encryption_keys (kek_id, status) VALUES (?, 'active')
             ON CONFLICT (kek_id) DO UPDATE SET status = 'active'`,
          )
          .run(kekId);
      })
      .immediate();
  }

  async rewrapBatch(toKekId: string, limit: number, rewrap: (card: SealedCard) => string): Promise<number> {
    return this.db
      .transaction(() => {
        const rows = this.selectOthers.all(toKekId, limit) as Row[];
        for (const row of rows) this.updateKey.run(toKekId, rewrap(toCard(row)), row.vault_ref);
        return rows.length;
      })
      .immediate();
  }

  async retireUnreferencedKeks(whileLocked?: (registered: string[]) => void): Promise<{ retired: string[] }> {
    return this.db
      .transaction(() => {
        const retired = this.db
          .prepare(
            `DELETE FROM key_encryption_keys
             WHERE status = 'retiring' AND NOT EXISTS (SELECT 1 FROM cards WHERE cards.kek_id = key_encryption_keys.kek_id)
             RETURNING kek_id`,
          )
          .pluck()
          .all() as string[];
        const registered = this.db
          .prepare('SELECT kek_id FROM key_encryption_keys')
          .pluck()
          .all() as string[];
        whileLocked?.(registered);
        return { retired };
      })
      .immediate();
  }

  async addRevealLink(link: RevealLink): Promise<void> {
    this.db
      .transaction(() => {
        // Links that expired are of no use any more, used or not: they go as new ones come.
        this.deleteExpiredLinks.run(link.createdAt);
        this.insertLink.run(link);
      })
      .immediate();
  }

  async useRevealLink(tokenHash: string, now: string): Promise<RevealLink | null> {
    const row = this.consumeLink.get({ tokenHash, now }) as LinkRow | undefined;
    return row ? toLink(row) : null;
  }

  async findRevealLink(tokenHash: string, now: string): Promise<RevealLink | null> {
    const row = this.selectUsableLink.get({ tokenHash, now }) as LinkRow | undefined;
    return row ? toLink(row) : null;
  }

  async close(): Promise<void> {
    // Let puts already queued reach the disk before the store closes.
    if (this.puts.pending && this.db.open) this.puts.flush();
    await this.checkpointer?.stop();
    if (this.db.open) this.db.close();
  }
}
