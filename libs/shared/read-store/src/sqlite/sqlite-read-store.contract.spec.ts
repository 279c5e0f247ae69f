import { openSqliteDatabase, SqliteDatabase } from '@cip/shared/runtime';
import type { Statement } from 'better-sqlite3';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { readStoreContract } from '../contract/read-store.contract';
import { SqliteReadStore } from './sqlite-read-store';

describe('read store contract: SQLite (embedded)', () => {
  const dir = mkdtempSync(join(tmpdir(), 'cip-rs-'));
  let db: SqliteDatabase;
  readStoreContract({
    open: async () => {
      db = openSqliteDatabase(join(dir, 'sandbox.sqlite'));
      return new SqliteReadStore(db);
    },
    cleanup: async () => {
      db.close();
      rmSync(dir, { recursive: true, force: true });
    },
  });
});

describe('read store: SQLite query plans', () => {
  const dir = mkdtempSync(join(tmpdir(), 'cip-rs-plan-'));
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it('reads expired documents through the expiry index, not by scanning the collection', () => {
    const db = openSqliteDatabase(join(dir, 'sandbox.sqlite'));
    const store = new SqliteReadStore(db);
    // The statement expiredBy runs, as SQLite plans it. A scan would read every document with a deadline on
    // every sweep: the 3DS sweep did (pending challenges, once a second) and stalled the ACS for 100s of ms.
    const { source } = (store as unknown as { selectExpired: Statement }).selectExpired;
    const plan = (
      db
        .prepare(`EXPLAIN QUERY PLAN ${source}`)
        .all({ collection: 'c', at: 'z', afterAt: '', afterId: '', limit: 100 }) as { detail: string }[]
    )
      .map((row) => row.detail)
      .join('\n');
    expect(plan).toMatch(/USING INDEX read_models_expiry/);
    expect(plan).not.toMatch(/TEMP B-TREE/);
    db.close();
  });

  it('reads a lookup by an indexed field through its index, also in a store opened after it was made', async () => {
    const db = openSqliteDatabase(join(dir, 'lookups.sqlite'));
    await new SqliteReadStore(db).ensureIndexes('authorizations', ['cardId']);
    // Another process (or the next start) opens the file: it finds the index without declaring it.
    const store = new SqliteReadStore(db);
    const statements = (store as unknown as { findStatements: Map<string, Statement> }).findStatements;
    const plans: string[] = [];
    const filters: Record<string, string>[] = [
      { cardId: 'crd-1', type: 'payment' },
      { cardId: 'crd-1', distributorId: 'dst-a' },
    ];
    for (const filter of filters) {
      await store.find('authorizations', {
        filter,
        sort: { field: 'createdAt', direction: 'asc' },
        page: 0,
        limit: 10,
      });
    }
    for (const { source } of statements.values()) {
      plans.push(
        (
          db
            .prepare(`EXPLAIN QUERY PLAN ${source}`)
            .all({ cardId: 'c', type: 't', distributorId: 'd', limit: 1, offset: 0 }) as { detail: string }[]
        )
          .map((row) => row.detail)
          .join(' '),
      );
    }
    // A scan of the collection (the spend history of a card read every payment of every card) would show
    // the primary key or the tenant index instead, and a sort.
    expect(plans).toHaveLength(2);
    for (const plan of plans) {
      expect(plan).toMatch(/USING INDEX read_models_lookup\/authorizations\/cardId/);
      expect(plan).not.toMatch(/TEMP B-TREE/);
    }
    db.close();
  });
});

describe('read store: a SQLite file written before lists ordered ties by log position', () => {
  const dir = mkdtempSync(join(tmpdir(), 'cip-rs-old-'));
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it('opens it, keeps its documents (positions 0, ties by id, deadlines found) and stores positions from then on', async () => {
    const db = openSqliteDatabase(join(dir, 'sandbox.sqlite'));
    db.exec(`
      CREATE TABLE read_models (
        collection TEXT NOT NULL, id TEXT NOT NULL, version INTEGER NOT NULL, doc TEXT,
        created_at TEXT, updated_at TEXT, PRIMARY KEY (collection, id)
      ) WITHOUT ROWID;
      CREATE INDEX read_models_tenant_created
        ON read_models (collection, json_extract(doc, '$.distributorId'), created_at);
    `);
    const at = '2026-01-01T00:00:00.000Z';
    const doc = (id: string) => ({ id, distributorId: 'dst-a', createdAt: at, updatedAt: at });
    db.prepare('INSERT INTO read_models VALUES (?, ?, 0, ?, ?, ?)').run(
      'users',
      'usr-b',
      JSON.stringify(doc('usr-b')),
      at,
      at,
    );
    const deadline = { ...doc('kyc-a'), expiresAt: '2026-01-15T00:00:00.000Z' };
    db.prepare('INSERT INTO read_models VALUES (?, ?, 0, ?, ?, ?)').run(
      'deadlines',
      'kyc-a',
      JSON.stringify(deadline),
      at,
      at,
    );
    const store = new SqliteReadStore(db);
    // A deadline written before the sweeps read by the expiry column is still found.
    expect(await store.expiredBy('deadlines', '2026-02-01T00:00:00.000Z', { limit: 10 })).toEqual([deadline]);
    await store.upsertMany('users', [
      { id: 'usr-a', doc: doc('usr-a'), version: 0, positions: { created: 5, updated: 5 } },
    ]);
    const page = await store.find('users', {
      filter: { distributorId: 'dst-a' },
      sort: { field: 'createdAt', direction: 'asc' },
      page: 0,
      limit: 10,
    });
    expect(page.items.map((d) => d.id)).toEqual(['usr-b', 'usr-a']);
    expect((await store.getVersioned('users', 'usr-b'))?.positions).toEqual({ created: 0, updated: 0 });
    // Opening the migrated file again (the next start) does not fail.
    expect(() => new SqliteReadStore(db)).not.toThrow();
    db.close();
  });
});

describe('read store: a SQLite file whose documents were keyed by (collection, id) in a WITHOUT ROWID table', () => {
  const dir = mkdtempSync(join(tmpdir(), 'cip-rs-rowid-'));
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it('moves its documents into the rowid table, keeps its lookup indexes, and goes on guarding versions', async () => {
    const db = openSqliteDatabase(join(dir, 'sandbox.sqlite'));
    // The table and indexes as the previous version made them.
    db.exec(`
      CREATE TABLE read_models (
        collection TEXT NOT NULL, id TEXT NOT NULL, version INTEGER NOT NULL, doc TEXT,
        created_at TEXT, updated_at TEXT,
        created_position INTEGER NOT NULL DEFAULT 0, updated_position INTEGER NOT NULL DEFAULT 0,
        expires_at TEXT,
        PRIMARY KEY (collection, id)
      ) WITHOUT ROWID;
      CREATE INDEX read_models_tenant_created_order
        ON read_models (collection, json_extract(doc, '$.distributorId'), created_at, created_position, id);
      CREATE INDEX "read_models_lookup/authorizations/cardId"
        ON read_models (json_extract(doc, '$.cardId'), created_at, created_position, id)
        WHERE collection = 'authorizations';
    `);
    const at = (second: number) => `2026-01-01T00:00:0${second}.000Z`;
    const authorization = (id: string, second: number) => ({
      id,
      cardId: 'crd-1',
      distributorId: 'dst-a',
      createdAt: at(second),
      updatedAt: at(second),
    });
    const insert = db.prepare('INSERT INTO read_models VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)');
    for (const [id, second] of [
      ['aut-b', 2],
      ['aut-a', 1],
    ] as const) {
      const doc = authorization(id, second);
      insert.run(
        'authorizations',
        id,
        second * 10,
        JSON.stringify(doc),
        doc.createdAt,
        doc.updatedAt,
        second,
        second,
        null,
      );
    }
    const deadline = {
      id: 'kyc-a',
      distributorId: 'dst-a',
      createdAt: at(3),
      updatedAt: at(3),
      expiresAt: at(5),
    };
    insert.run('deadlines', 'kyc-a', 30, JSON.stringify(deadline), at(3), at(3), 3, 3, deadline.expiresAt);

    const store = new SqliteReadStore(db);
    const tableSql = db.prepare(`SELECT sql FROM sqlite_master WHERE name = 'read_models'`).pluck().get();
    expect(tableSql).not.toMatch(/WITHOUT ROWID/i);
    // Every document kept, with its version and positions; lists and deadlines read as before.
    expect(await store.getVersioned('authorizations', 'aut-a')).toEqual({
      doc: authorization('aut-a', 1),
      version: 10,
      positions: { created: 1, updated: 1 },
    });
    const page = await store.find('authorizations', {
      filter: { cardId: 'crd-1' },
      sort: { field: 'createdAt', direction: 'asc' },
      page: 0,
      limit: 10,
    });
    expect(page.items.map((d) => d.id)).toEqual(['aut-a', 'aut-b']);
    expect(await store.expiredBy('deadlines', at(6), { limit: 10 })).toEqual([deadline]);
    // The lookup index made on the old table exists on the new one, and a store opened now uses it.
    const plan = (
      db
        .prepare(
          `EXPLAIN QUERY PLAN ${
            [...(store as unknown as { findStatements: Map<string, Statement> }).findStatements.values()][0]
              .source
          }`,
        )
        .all({ cardId: 'c', limit: 1, offset: 0 }) as { detail: string }[]
    )
      .map((row) => row.detail)
      .join(' ');
    expect(plan).toMatch(/USING INDEX read_models_lookup\/authorizations\/cardId/);
    // Writes still keep the newest version of a document, once.
    const older = { ...authorization('aut-a', 1), updatedAt: at(8) };
    expect(await store.upsertMany('authorizations', [{ id: 'aut-a', version: 5, doc: older }])).toBe(0);
    const newer = { ...authorization('aut-a', 1), updatedAt: at(9) };
    expect(await store.upsertMany('authorizations', [{ id: 'aut-a', version: 11, doc: newer }])).toBe(1);
    expect(await store.get('authorizations', 'aut-a')).toEqual(newer);
    expect(db.prepare('SELECT count(*) FROM read_models').pluck().get()).toBe(3);
    // The next start opens the converted file as it is.
    expect(() => new SqliteReadStore(db)).not.toThrow();
    expect(db.prepare('SELECT count(*) FROM read_models').pluck().get()).toBe(3);
    db.close();
  });
});
