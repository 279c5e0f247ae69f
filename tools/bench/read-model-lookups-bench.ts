import { SqliteReadStore } from '@cip/shared/read-store';
import { openSqliteDatabase } from '@cip/shared/runtime';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { formatNumber, printFigures, type Figure } from './append-bench';

/** Documents in the collection: a platform's authorizations (or pending challenges) after some weeks. */
const DOCUMENTS = Number(process.env.LOOKUP_BENCH_DOCUMENTS ?? 100_000);
const CARDS = 10_000;
/** The paged read before the expiry index is quadratic in the pending documents: 100,000 took 120-150 s. */
const SWEEP_DOCUMENTS = 20_000;
const LOOKUPS = 200;
const PAGE = 100;
const DAY_MS = 86_400_000;
const START = Date.parse('2026-11-01T00:00:00.000Z');

/** Milliseconds per call of `run`, over `times` calls. */
async function msPer(times: number, run: (i: number) => Promise<unknown>): Promise<number> {
  const started = performance.now();
  for (let i = 0; i < times; i++) await run(i);
  return (performance.now() - started) / times;
}

/**
 * The read-model lookups the money path and the sweeps make, each way side by side in one run: a card's
 * payments (the window limits' history, read on every authorization of a card with one) by the `cardId`
 * lookup index against the filtered scan it was before; and a deadline sweep's read of what is due (none of
 * SWEEP_DOCUMENTS pending documents is) by the expiry index against the filtered, paged read of every
 * pending document it was before.
 */
export async function readModelLookupsBench(): Promise<Figure[]> {
  console.log(`\n== Read-model lookups and deadline sweeps (before / after, one run) ==`);
  const dir = mkdtempSync(join(tmpdir(), 'cip-bench-lookups-'));
  const db = openSqliteDatabase(join(dir, 'sandbox.sqlite'));
  try {
    const store = new SqliteReadStore(db);
    const doc = (i: number) => {
      const at = new Date(START + i * 1000).toISOString();
      return {
        id: `auth-${String(i).padStart(7, '0')}`,
        distributorId: `dst-${i % 4}`,
        cardId: `crd-${i % CARDS}`,
        type: 'payment',
        status: 'confirmed',
        amount: 12.5,
        expiresAt: new Date(START + 7 * DAY_MS + i * 1000).toISOString(),
        createdAt: at,
        updatedAt: at,
      };
    };
    for (let from = 0; from < DOCUMENTS; from += 5_000) {
      const writes = [];
      for (let i = from; i < Math.min(DOCUMENTS, from + 5_000); i++) {
        writes.push({
          id: doc(i).id,
          doc: doc(i),
          version: 0,
          positions: { created: i + 1, updated: i + 1 },
        });
      }
      await store.upsertMany('authorizations', writes);
    }
    const cardPayments = async (i: number) => {
      const found = [];
      for (let page = 0; ; page++) {
        const { items, hasMore } = await store.find('authorizations', {
          filter: { cardId: `crd-${(i * 7919) % CARDS}`, type: 'payment' },
          sort: { field: 'createdAt', direction: 'asc' },
          page,
          limit: PAGE,
        });
        found.push(...items);
        if (!hasMore) return found;
      }
    };
    const scanMs = await msPer(LOOKUPS / 10, cardPayments);
    await store.ensureIndexes('authorizations', ['cardId']);
    const indexedMs = await msPer(LOOKUPS, cardPayments);

    // A sweep finds nothing due among SWEEP_DOCUMENTS pending ones (the clock is before every deadline).
    const pending = Array.from({ length: SWEEP_DOCUMENTS }, (_, i) => doc(i));
    await store.upsertMany(
      'pending',
      pending.map((d, i) => ({
        id: d.id,
        doc: d,
        version: 0,
        positions: { created: i + 1, updated: i + 1 },
      })),
    );
    const now = new Date(START).toISOString();
    const pagedMs = await msPer(1, async () => {
      for (let page = 0; ; page++) {
        const { items, hasMore } = await store.find<ReturnType<typeof doc>>('pending', {
          filter: { status: 'confirmed' },
          sort: { field: 'createdAt', direction: 'asc' },
          page,
          limit: PAGE,
        });
        if (items.some((item) => item.expiresAt <= now) || !hasMore) return;
      }
    });
    const expiredMs = await msPer(LOOKUPS, () => store.expiredBy('pending', now, { limit: PAGE }));

    const figures: Figure[] = [
      { label: "a card's payments, filtered scan (before)", value: scanMs, unit: 'ms' },
      { label: "a card's payments, cardId lookup index (after)", value: indexedMs, unit: 'ms' },
      {
        label: `a sweep, ${formatNumber(SWEEP_DOCUMENTS)} pending, paged filter (before)`,
        value: pagedMs,
        unit: 'ms',
      },
      {
        label: `a sweep, ${formatNumber(SWEEP_DOCUMENTS)} pending, expiry index (after)`,
        value: expiredMs,
        unit: 'ms',
      },
    ];
    printFigures(figures);
    console.log(
      `  (${formatNumber(DOCUMENTS)} payments over ${formatNumber(CARDS)} cards; ratios: lookup ` +
        `x${formatNumber(scanMs / indexedMs)}, sweep x${formatNumber(pagedMs / expiredMs)})`,
    );
    return figures;
  } finally {
    db.close();
    rmSync(dir, { recursive: true, force: true });
  }
}

if (require.main === module) {
  readModelLookupsBench().then(
    () => process.exit(0),
    (error: unknown) => {
      console.error(error);
      process.exit(1);
    },
  );
}
