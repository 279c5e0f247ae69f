import { deadline, waitFor } from '@cip/shared/testing';
import type { ChildProcess } from 'node:child_process';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import {
  approvedUser,
  cardsOf,
  keyedCreationsUntilKill,
  discardPlatform,
  jsonCaller,
  startDurablePlatform,
} from './testing/kill-nine';
import { exited, freePort } from '@cip/platform/topologies';

const KEY = 'sk_sandbox_idemCrashKeyEEEEEEEEEEEEEEEEEEEEEEEEEEE';

/**
 * A card creation has no uniqueness to refuse a second run: only the idempotency record stands between a
 * retry and a second card (spec part 4, "no second object is created"). A keyed creation killed after its
 * events were durable and before its outcome was must not run again when retried.
 */
describe('durability: kill -9 in the middle of keyed card creations, every key retried after the restart', () => {
  const dataDir = mkdtempSync(join(tmpdir(), 'cip-crash-idem-'));
  let child: ChildProcess | undefined;

  afterAll(() => discardPlatform(child, dataDir));

  it('creates exactly one card per key, and replays each answered creation as it was sent', async () => {
    const port = await freePort();
    const base = `http://127.0.0.1:${port}`;
    const call = jsonCaller(base, KEY);
    const headers = { 'x-api-key': KEY, 'content-type': 'application/json' };
    child = await startDurablePlatform(dataDir, port, KEY);

    const userIds: string[] = [];
    for (let i = 0; i < 2; i++) userIds.push(await approvedUser(call, `idem-crash-${i}@example.com`));

    const post = (key: string, body: string) =>
      fetch(`${base}/v1/cards`, { method: 'POST', headers: { ...headers, 'x-idempotency-key': key }, body });
    /** Every key sent, with its body; the answer when one came before the kill. */
    const sentKeys = await keyedCreationsUntilKill({
      post,
      key: (i) => `idem-crash-card-${i}`,
      body: (i) => JSON.stringify({ userId: userIds[i % userIds.length], type: 'virtual' }),
      killAfter: 200,
      workers: 32,
      kill: () => child!.kill('SIGKILL'),
      inTime: deadline({ what: '200 answered keyed card creations to kill the platform on' }),
    });
    await exited(child);
    expect(child.signalCode).toBe('SIGKILL');
    const unanswered = [...sentKeys.values()].filter((s) => !s.answer).length;
    expect(unanswered).toBeGreaterThan(0);

    // The claims died with the process: every key is retried after the restart, answered or not.
    child = await startDurablePlatform(dataDir, port, KEY);
    let lost = 0;
    /** Keys whose creation succeeded (a 201, first or on the retry) or ran without its answer: one card each. */
    let created = 0;
    const statuses: Record<number, number> = {};
    for (const [key, { body, answer }] of sentKeys) {
      const retry = await post(key, body);
      const retried = { status: retry.status, body: (await retry.json()) as Record<string, unknown> };
      statuses[(answer ?? retried).status] = (statuses[(answer ?? retried).status] ?? 0) + 1;
      if ((answer ?? retried).status === 201) created++;
      if (answer) {
        // Answered before the kill (a 201, or a refusal of a loaded platform): the stored outcome, as it was sent.
        expect({ key, ...retried }).toEqual({ key, ...answer });
        expect(retry.headers.get('x-idempotent-replayed')).toBe('true');
      } else if (retried.status === 409) {
        // Its card was written, its answer was not: refused, never run a second time.
        expect((retried.body.error as { code: string }).code).toBe('idempotency_outcome_lost');
        lost++;
        created++;
      } else {
        expect({ key, status: retried.status }).toEqual({ key, status: 201 });
      }
    }
    expect(created).toBeGreaterThanOrEqual(200);

    // Exactly one card per key that created one, whatever the kill interrupted.
    const countCards = () => cardsOf(call, userIds);
    let cards = 0;
    await waitFor(async () => (cards = await countCards()) >= created, {
      what: `a card for each of the ${created} keys that created one in the list (statuses ${JSON.stringify(statuses)}, ${lost} lost)`,
      timeoutMs: 10_000,
      intervalMs: 100,
    });
    expect({ cards, unanswered, lost }).toEqual({ cards: created, unanswered, lost });
  }, 90_000);
});
