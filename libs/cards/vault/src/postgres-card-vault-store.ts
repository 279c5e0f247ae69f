// Types only: importing this file must not load pg (the embedded runtime never does; `connect` loads it).
import { migrate, type Migration } from '@cip/shared/runtime';
import type { Pool, PoolClient } from 'pg';
import type {
  CardVaultStore,
  PutOutcome,
  RegisteredKek,
  RevealLink,
  SealedCard,
} from './card-vault-store.port';

/**
 * The vault's schema, in a PostgreSQL schema of its own (`card_vault` by default, see `connect`). Ids and KEK
 * ids compare bytewise (COLLATE "C"), as SQLite and MongoDB order them, whatever the database's locale.
 */
const MIGRATIONS: readonly Migration[] = [
  {
    version: 1,
    description: 'cards (unique PAN hash), key_encryption_keys (one active), reveal_links',
    sql: `
      CREATE TABLE cards (
        vault_ref   text COLLATE "C" NOT NULL PRIMARY KEY,
        pan_hash    text COLLATE "C" NOT NULL CONSTRAINT cards_pan_hash_unique UNIQUE,
        kek_id      text COLLATE "C" NOT NULL,
        wrapped_key text NOT NULL,
        sealed_pan  text NOT NULL,
        sealed_pvv  text,
        exp_month   integer NOT NULL,
        exp_year    integer NOT NULL,
        created_at  text NOT NULL
      );
      CREATE INDEX cards_by_kek ON cards (kek_id);
      CREATE TABLE key_encryption_keys (
        kek_id text COLLATE "C" NOT NULL PRIMARY KEY,
        status text NOT NULL CHECK (status IN ('active', 'retiring'))
      );
      CREATE UNIQUE INDEX one_active_kek ON key_encryption_keys (status) WHERE status = 'active';
      CREATE TABLE reveal_links (
        token_hash     text COLLATE "C" NOT NULL PRIMARY KEY,
        vault_ref      text NOT NULL,
        card_id        text NOT NULL,
        distributor_id text NOT NULL,
        request_id     text NOT NULL,
        created_at     text COLLATE "C" NOT NULL,
        expires_at     text COLLATE "C" NOT NULL,
        used_at        text
      );
      CREATE INDEX reveal_links_expiry ON reveal_links (expires_at);
    `,
  },
];

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

interface PendingPut {
  card: SealedCard;
  resolve(outcome: PutOutcome): void;
  reject(error: unknown): void;
}

const CARD_COLUMNS =
  'vault_ref, pan_hash, kek_id, wrapped_key, sealed_pan, sealed_pvv, exp_month, exp_year, created_at';
const LINK_COLUMNS = 'token_hash, vault_ref, card_id, distributor_id, request_id, created_at, expires_at';
/** Cards written in one transaction at most (one statement of arrays, a few hundred kB). */
const MAX_BATCH = 500;
/** A batch chosen as a deadlock's victim (two processes waiting on each other's new rows) runs again. */
const DEADLOCK_RETRIES = 5;
const DEADLOCK_DETECTED = '40P01';
const SCHEMA_NAME = /^[a-z_][a-z0-9_]*$/;

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

/** Byte order, as the columns' COLLATE "C". */
const byCodeUnit = (a: string, b: string) => (a < b ? -1 : a > b ? 1 : 0);

export interface PostgresCardVaultStoreOptions {
  /** The name its schema steps are recorded under in `schema_migrations` (default `card-vault`). */
  component?: string;
  /** Observes each group commit of new cards: how many puts it acknowledged (metrics, tests). */
  onCommit?: (puts: number) => void;
}

export interface PostgresCardVaultConnection extends PostgresCardVaultStoreOptions {
  /**
   * The vault's database, e.g. `postgres://card_vault@db-vault/cip`: the role in it needs USAGE and CREATE on
   * `schema` only (or to own it), nothing on the scopes' schemas, so that PCI scoping can keep it apart.
   */
  url: string;
  /** The PostgreSQL schema of the vault's tables (default `card_vault`): created when missing. */
  schema?: string;
  /** Connections of the store's pool (default 3): every pool of a topology shares `max_connections`. */
  max?: number;
  /** Shown in pg_stat_activity. */
  applicationName?: string;
}

/**
 * The card vault on PostgreSQL, in a schema of its own (by default `card_vault`; a database and role of its own
 * suit PCI scoping), never the scopes': a copy or a role of the event and read-model databases carries no card
 * secrets. Only what the other adapters hold is stored: sealed values, a keyed hash of the PAN, the expiry.
 *
 * - The registry table `key_encryption_keys` is the store's write lock. A batch of new cards locks it in SHARE
 *   mode before it reads the active KEK (batches of several processes run side by side), `activateKek` and
 *   `retireUnreferencedKeks` in SHARE ROW EXCLUSIVE mode (against batches and each other): a batch that read
 *   "kek-1 active" commits before a rotation switches it, or waits and reads the new one; a KEK is forgotten
 *   only while no card uses it and no batch can add one. Reads take no lock.
 * - PAN uniqueness is the unique index on `pan_hash`: a batch is one INSERT ... ON CONFLICT DO NOTHING; a row
 *   not inserted is `existing_ref` when its vault ref is stored (checked after the insert, which waited for
 *   any other transaction inserting the same key), otherwise `duplicate_pan`. Rows go in PAN-hash order, so two
 *   processes' batches wait on each other's rows in one order; a deadlock that still happens (on vault refs)
 *   makes the batch run again.
 * - Durability: a commit resolves once flushed to the WAL (`synchronous_commit` on, the server's default);
 *   `open` refuses a session where it is off.
 * - Group commit as the other adapters: puts made while a transaction is in flight go into the next one (at
 *   most 500), and each put resolves once its commit did.
 */
export class PostgresCardVaultStore implements CardVaultStore {
  private queue: PendingPut[] = [];
  private flushing: Promise<void> | null = null;
  private closed = false;

  private constructor(
    private readonly pool: Pool,
    private readonly options: PostgresCardVaultStoreOptions,
    private readonly closesPool: boolean,
  ) {}

  /**
   * The store on `pool`, whose sessions' search_path is the vault's schema (which must exist); applies its
   * schema steps first. The pool belongs to the caller, who closes it after the store.
   */
  static async open(
    pool: Pool,
    options: PostgresCardVaultStoreOptions = {},
  ): Promise<PostgresCardVaultStore> {
    return PostgresCardVaultStore.prepare(pool, options, false);
  }

  private static async prepare(
    pool: Pool,
    options: PostgresCardVaultStoreOptions,
    closesPool: boolean,
  ): Promise<PostgresCardVaultStore> {
    const { rows } = await pool.query<{ synchronous_commit: string }>('SHOW synchronous_commit');
    if (rows[0]?.synchronous_commit === 'off') {
      throw new Error(
        'The card vault store needs durable commits: synchronous_commit is off for its sessions',
      );
    }
    await migrate(pool, options.component ?? 'card-vault', MIGRATIONS);
    return new PostgresCardVaultStore(pool, options, closesPool);
  }

  /**
   * The store on a pool of its own to `url`, in `schema` (created when missing, which needs CREATE on the
   * database; a role with privileges on an existing schema only needs nothing more). `close` ends the pool.
   * Loads pg only when called.
   */
  static async connect(options: PostgresCardVaultConnection): Promise<PostgresCardVaultStore> {
    const schema = options.schema ?? 'card_vault';
    if (!SCHEMA_NAME.test(schema)) throw new Error(`Invalid schema name ${schema}`);
    const { openPostgresPool } = await import('@cip/shared/read-store/distributed');
    const pool = openPostgresPool(options.url, {
      schema,
      max: options.max ?? 3,
      applicationName: options.applicationName ?? 'cip-card-vault',
    });
    try {
      const { rowCount } = await pool.query('SELECT 1 FROM pg_namespace WHERE nspname = $1', [schema]);
      if (rowCount === 0) await pool.query(`CREATE SCHEMA IF NOT EXISTS ${schema}`);
      return await PostgresCardVaultStore.prepare(pool, options, true);
    } catch (error) {
      await pool.end();
      throw error;
    }
  }

  put(card: SealedCard): Promise<PutOutcome> {
    if (this.closed) return Promise.reject(new Error('The card vault store is closed'));
    return new Promise<PutOutcome>((resolve, reject) => {
      this.queue.push({ card, resolve, reject });
      this.flushing ??= this.flush();
    });
  }

  /** Commits the queued puts, batch after batch, until none is left; one batch at a time per store. */
  private async flush(): Promise<void> {
    // A turn of the event loop first, so that the puts of the same burst share the first commit.
    await new Promise((resolve) => setImmediate(resolve));
    while (this.queue.length > 0) {
      const batch = this.queue.splice(0, MAX_BATCH);
      let outcomes: PutOutcome[];
      try {
        outcomes = await this.commit(batch.map((put) => put.card));
      } catch (error) {
        for (const put of batch) put.reject(error);
        continue;
      }
      batch.forEach((put, i) => put.resolve(outcomes[i]));
      this.options.onCommit?.(batch.length);
    }
    // No await between the loop's last check and this: a put made from now on starts a new flush.
    this.flushing = null;
  }

  private async commit(batch: SealedCard[]): Promise<PutOutcome[]> {
    for (let attempt = 1; ; attempt++) {
      try {
        return await this.transaction((client) => this.writeCards(client, batch));
      } catch (error) {
        if ((error as { code?: unknown }).code !== DEADLOCK_DETECTED || attempt >= DEADLOCK_RETRIES)
          throw error;
      }
    }
  }

  private async writeCards(client: PoolClient, batch: SealedCard[]): Promise<PutOutcome[]> {
    await client.query('LOCK TABLE key_encryption_keys IN SHARE MODE');
    const active = await this.activeKekIdOn(client);
    const outcomes = batch.map((card): PutOutcome => (card.kekId === active ? 'stored' : 'stale_kek'));
    // A stable sort: of two cards of the batch with one PAN, the first is stored (of two with one vault ref,
    // the one with the lower PAN hash).
    const writes = batch
      .map((card, i) => ({ card, i }))
      .filter(({ i }) => outcomes[i] === 'stored')
      .sort((a, b) => byCodeUnit(a.card.panHash, b.card.panHash));
    if (writes.length === 0) return outcomes;
    const column = <K extends keyof SealedCard>(key: K) => writes.map(({ card }) => card[key]);
    const inserted = await client.query<{ vault_ref: string; pan_hash: string }>(
      `INSERT INTO cards (${CARD_COLUMNS})
       SELECT * FROM unnest($1::text[], $2::text[], $3::text[], $4::text[], $5::text[], $6::text[],
         $7::integer[], $8::integer[], $9::text[])
       ON CONFLICT DO NOTHING
       RETURNING vault_ref, pan_hash`,
      [
        column('vaultRef'),
        column('panHash'),
        column('kekId'),
        column('wrappedKey'),
        column('sealedPan'),
        column('sealedPvv'),
        column('expMonth'),
        column('expYear'),
        column('createdAt'),
      ],
    );
    // Both keys are unique in the table: a returned pair is exactly one card of the batch.
    const stored = new Set(inserted.rows.map((row) => `${row.vault_ref}\u0000${row.pan_hash}`));
    const missed = writes.filter(({ card }) => !stored.delete(`${card.vaultRef}\u0000${card.panHash}`));
    if (missed.length === 0) return outcomes;
    const refs = await client.query<{ vault_ref: string }>(
      'SELECT vault_ref FROM cards WHERE vault_ref = ANY($1::text[])',
      [missed.map(({ card }) => card.vaultRef)],
    );
    const existing = new Set(refs.rows.map((row) => row.vault_ref));
    for (const { card, i } of missed)
      outcomes[i] = existing.has(card.vaultRef) ? 'existing_ref' : 'duplicate_pan';
    return outcomes;
  }

  async get(vaultRef: string): Promise<SealedCard | null> {
    const { rows } = await this.pool.query<Row>(`SELECT ${CARD_COLUMNS} FROM cards WHERE vault_ref = $1`, [
      vaultRef,
    ]);
    return rows[0] ? toCard(rows[0]) : null;
  }

  async findByPanHash(panHash: string): Promise<SealedCard | null> {
    const { rows } = await this.pool.query<Row>(`SELECT ${CARD_COLUMNS} FROM cards WHERE pan_hash = $1`, [
      panHash,
    ]);
    return rows[0] ? toCard(rows[0]) : null;
  }

  async setPvv(vaultRef: string, sealedPvv: string): Promise<boolean> {
    const { rowCount } = await this.pool.query('UPDATE cards SET sealed_pvv = $1 WHERE vault_ref = $2', [
      sealedPvv,
      vaultRef,
    ]);
    return rowCount === 1;
  }

  async activeKekId(): Promise<string | null> {
    return this.activeKekIdOn(this.pool);
  }

  private async activeKekIdOn(client: Pool | PoolClient): Promise<string | null> {
    const { rows } = await client.query<{ kek_id: string }>(
      "SELECT kek_id FROM key_encryption_keys WHERE status = 'active'",
    );
    return rows[0]?.kek_id ?? null;
  }

  async registeredKeks(): Promise<RegisteredKek[]> {
    // One statement, one snapshot for the registry and the counts.
    const { rows } = await this.pool.query<RegisteredKek>(
      `SELECT k.kek_id AS "kekId", k.status,
         (SELECT count(*) FROM cards c WHERE c.kek_id = k.kek_id)::integer AS cards
       FROM key_encryption_keys k ORDER BY k.status, k.kek_id`,
    );
    return rows;
  }

  async activateKek(kekId: string, whileLocked?: () => void): Promise<void> {
    await this.transaction(async (client) => {
      await client.query('LOCK TABLE key_encryption_keys IN SHARE ROW EXCLUSIVE MODE');
      whileLocked?.();
      // Cards of a store from before the registry: their KEKs are registered as retiring.
      await client.query(
        `INSERT INTO key_encryption_keys (kek_id, status)
         SELECT DISTINCT kek_id, 'retiring' FROM cards WHERE kek_id <> $1
         ON CONFLICT (kek_id) DO NOTHING`,
        [kekId],
      );
      await client.query(
        "UPDATE key_encryption_keys SET status = 'retiring' WHERE status = 'active' AND kek_id <> $1",
        [kekId],
      );
      await client.query(
        `INSERT INTO key_encryption_keys (kek_id, status) VALUES ($1, 'active')
         ON CONFLICT (kek_id) DO UPDATE SET status = 'active'`,
        [kekId],
      );
    });
  }

  async rewrapBatch(toKekId: string, limit: number, rewrap: (card: SealedCard) => string): Promise<number> {
    return this.transaction(async (client) => {
      // Locked until the commit: a concurrent re-wrap of the same cards waits, then skips them.
      const { rows } = await client.query<Row>(
        `SELECT ${CARD_COLUMNS} FROM cards WHERE kek_id <> $1 ORDER BY vault_ref LIMIT CAST($2 AS integer) FOR UPDATE`,
        [toKekId, limit],
      );
      if (rows.length === 0) return 0;
      await client.query(
        `UPDATE cards SET kek_id = $1, wrapped_key = w.wrapped_key
         FROM unnest($2::text[], $3::text[]) AS w (vault_ref, wrapped_key)
         WHERE cards.vault_ref = w.vault_ref`,
        [toKekId, rows.map((row) => row.vault_ref), rows.map((row) => rewrap(toCard(row)))],
      );
      return rows.length;
    });
  }

  async retireUnreferencedKeks(whileLocked?: (registered: string[]) => void): Promise<{ retired: string[] }> {
    return this.transaction(async (client) => {
      await client.query('LOCK TABLE key_encryption_keys IN SHARE ROW EXCLUSIVE MODE');
      const deleted = await client.query<{ kek_id: string }>(
        `DELETE FROM key_encryption_keys k
         WHERE k.status = 'retiring' AND NOT EXISTS (SELECT 1 FROM cards c WHERE c.kek_id = k.kek_id)
         RETURNING k.kek_id`,
      );
      const registered = await client.query<{ kek_id: string }>(
        'SELECT kek_id FROM key_encryption_keys ORDER BY kek_id',
      );
      whileLocked?.(registered.rows.map((row) => row.kek_id));
      return { retired: deleted.rows.map((row) => row.kek_id) };
    });
  }

  async addRevealLink(link: RevealLink): Promise<void> {
    await this.transaction(async (client) => {
      // Links that expired are of no use any more, used or not: they go as new ones come.
      await client.query('DELETE FROM reveal_links WHERE expires_at <= $1', [link.createdAt]);
      await client.query(`INSERT INTO reveal_links (${LINK_COLUMNS}) VALUES ($1, $2, $3, $4, $5, $6, $7)`, [
        link.tokenHash,
        link.vaultRef,
        link.cardId,
        link.distributorId,
        link.requestId,
        link.createdAt,
        link.expiresAt,
      ]);
    });
  }

  async useRevealLink(tokenHash: string, now: string): Promise<RevealLink | null> {
    // One row, one UPDATE: of concurrent uses, the first takes the row lock and the others, re-checking
    // `used_at IS NULL` once it committed, update nothing. ISO-8601 UTC strings of one format order as instants.
    const { rows } = await this.pool.query<LinkRow>(
      `UPDATE reveal_links SET used_at = $2
       WHERE token_hash = $1 AND used_at IS NULL AND expires_at > $2
       RETURNING ${LINK_COLUMNS}`,
      [tokenHash, now],
    );
    return rows[0] ? toLink(rows[0]) : null;
  }

  async findRevealLink(tokenHash: string, now: string): Promise<RevealLink | null> {
    const { rows } = await this.pool.query<LinkRow>(
      `SELECT ${LINK_COLUMNS} FROM reveal_links WHERE token_hash = $1 AND used_at IS NULL AND expires_at > $2`,
      [tokenHash, now],
    );
    return rows[0] ? toLink(rows[0]) : null;
  }

  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    // Puts already queued are committed before the store closes.
    await this.flushing;
    if (this.closesPool) await this.pool.end();
  }

  /** Runs `work` in one transaction (READ COMMITTED) on a connection of the pool; rolls back if it throws. */
  private async transaction<T>(work: (client: PoolClient) => Promise<T>): Promise<T> {
    const client = await this.pool.connect();
    let broken: Error | undefined;
    try {
      await client.query('BEGIN');
      try {
        const result = await work(client);
        await client.query('COMMIT');
        return result;
      } catch (error) {
        await client.query('ROLLBACK').catch((rollbackFailed: Error) => (broken = rollbackFailed));
        throw error;
      }
    } finally {
      // A connection whose rollback failed is closed rather than given to the next caller mid-transaction.
      client.release(broken);
    }
  }
}
