import { SplitTopology, startSplitTopology } from '@cip/platform/topologies';
import { deadline, waitFor } from '@cip/shared/testing';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { approvedUser, cardsOf, jsonCaller, keyedCreationsUntilKill } from './testing/kill-nine';

const KEY = 'sk_sandbox_idemSplitCrashKeyFFFFFFFFFFFFFFFFFFFFFF';
/** A kill is repeated (at most this often) until one of them caught a creation that ran without its answer. */
const MAX_KILLS = 4;

/**
 * The split topology (`npm run start:split`): the gateway holds the claims, the cards service appends the
 * card's events in its own process. A gateway killed -9 after the service appended a keyed creation's events
 * and before it stored the outcome must not let the retry create a second card (spec part 4).
 */
describe('durability: kill -9 of the split topology gateway in the middle of keyed card creations', () => {
  const dataDir = mkdtempSync(join(tmpdir(), 'cip-crash-idem-split-'));
  let topology: SplitTopology | undefined;

  afterAll(async () => {
    await topology?.close();
    rmSync(dataDir, { recursive: true, force: true });
  }, 60_000);

  it('creates exactly one card per key, retried after the gateway restart, and replays every answered one', async () => {
    topology = await startSplitTopology({
      dataDir,
      driver: 'embedded',
      ports: 'free',
      sandboxKey: KEY,
      env: { LOG_LEVEL: 'warn', RATE_LIMIT_PER_SECOND: '1000000' },
      startTimeoutMs: 120_000,
    });
    const base = topology.gatewayUrl;
    const gateway = topology.services.find((process) => process.name === 'gateway')!;
    const call = jsonCaller(base, KEY);
    const userIds: string[] = [];
    for (let i = 0; i < 2; i++) userIds.push(await approvedUser(call, `idem-split-${i}@example.com`));

    const post = (key: string, body: string) =>
      fetch(`${base}/v1/cards`, {
        method: 'POST',
        headers: { 'x-api-key': KEY, 'content-type': 'application/json', 'x-idempotency-key': key },
        body,
      });
    /** Keys whose creation succeeded (a 201, first or on the retry) or ran without its answer: one card each. */
    let created = 0;
    let lost = 0;
    let unanswered = 0;
    const statuses: Record<number, number> = {};

    for (let kill = 1; kill <= MAX_KILLS && lost === 0; kill++) {
      const sentKeys = await keyedCreationsUntilKill({
        post,
        key: (n) => `idem-split-${kill}-${n}`,
        body: (n) => JSON.stringify({ userId: userIds[n % userIds.length], type: 'virtual' }),
        killAfter: 40,
        workers: 8,
        kill: () => gateway.kill('SIGKILL'),
        inTime: deadline({
          what: `40 answered keyed card creations to kill the gateway on (kill ${kill})`,
          timeoutMs: 60_000,
        }),
      });
      unanswered += [...sentKeys.values()].filter((sent) => !sent.answer).length;
      // The cards service kept running: what it was doing for the dead gateway finishes without it.
      await gateway.restart();

      for (const [key, { body, answer }] of sentKeys) {
        let retried = { status: 0, body: {} as Record<string, unknown>, replayed: false };
        // A retry reaching the service while it still runs the first run is told to retry shortly.
        await waitFor(
          async () => {
            const retry = await post(key, body);
            retried = {
              status: retry.status,
              body: (await retry.json()) as Record<string, unknown>,
              replayed: retry.headers.get('x-idempotent-replayed') === 'true',
            };
            return (
              (retried.body.error as { code?: string } | undefined)?.code !==
              'idempotency_request_in_progress'
            );
          },
          { what: `the retry of ${key} answered other than in progress`, timeoutMs: 10_000, intervalMs: 50 },
        );
        const status = (answer ?? retried).status;
        statuses[status] = (statuses[status] ?? 0) + 1;
        if (status === 201) created++;
        if (answer) {
          // Answered before the kill: the stored outcome, as it was sent.
          expect({ key, status: retried.status, body: retried.body }).toEqual({ key, ...answer });
          expect(retried.replayed).toBe(true);
        } else if (retried.status === 409) {
          // Its card was written by the service, its answer was not stored: refused, never run a second time.
          expect((retried.body.error as { code: string }).code).toBe('idempotency_outcome_lost');
          lost++;
          created++;
        } else {
          expect({ key, status: retried.status }).toEqual({ key, status: 201 });
        }
      }
    }
    // Exactly one card per key that created one.
    const countCards = () => cardsOf(call, userIds);
    let cards = 0;
    await waitFor(async () => (cards = await countCards()) >= created, {
      what: `a card for each of the ${created} keys that created one (statuses ${JSON.stringify(statuses)}, ${lost} lost)`,
      timeoutMs: 10_000,
      intervalMs: 100,
    });
    // And a kill caught at least one creation between its events and its outcome: the proof is not empty.
    expect({ cards, lost: lost > 0, unanswered: unanswered > 0 }).toEqual({
      cards: created,
      lost: true,
      unanswered: true,
    });
  }, 300_000);
});
