import { SANDBOX_TEST_BIN } from '@cip/cards/domain';
import { describeWhenConfigured, waitFor } from '@cip/shared/testing';
import { spawn, type ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { join } from 'node:path';
import type { CardVault, IssuedCard } from '../card-vault';

// The kill -9 test of a distributed card vault, one body for every engine (MongoDB, PostgreSQL): a process
// issues cards from 16 issuers and is killed after 1,000 acknowledged; the restarted vault keeps every card
// it acknowledged, each decrypting, and goes on issuing.

/** The vault as built to dist/ (the e2e project's global setup builds it), which plain Node runs. */
const VAULT_MAIN = join(__dirname, '..', '..', '..', '..', '..', 'dist/libs/cards/vault/src/index.js');

/** The keys of a crash test's vault (fresh for each run). */
export const crashVaultKeys = () => ({
  keks: JSON.stringify({ active: 'kek-crash', keys: { 'kek-crash': randomBytes(32).toString('base64') } }),
  indexKey: randomBytes(32).toString('base64'),
  cvk: randomBytes(16).toString('hex'),
  pvk: randomBytes(16).toString('hex'),
});

/**
 * The issuing process: 16 issuers on one distributed vault (opened by `opener`, an export of the vault's
 * index), each card written to stdout as a JSON line once `issueCard` resolved (acknowledged). Stdout is a
 * pipe, written synchronously on Linux: a line the parent reads was acknowledged before the kill.
 */
const issuer = (opener: string) => `
const { ${opener} } = require(${JSON.stringify(VAULT_MAIN)});
(async () => {
  const vault = await ${opener}(JSON.parse(process.env.VAULT_OPTIONS));
  const now = new Date('2026-11-23T10:00:00.000Z');
  const issuer = async () => {
    for (;;) {
      const card = await vault.issueCard({ bin: ${JSON.stringify(SANDBOX_TEST_BIN)}, lifetimeMonths: 36, now });
      process.stdout.write(JSON.stringify(card) + '\\n');
    }
  };
  await Promise.all(Array.from({ length: 16 }, issuer));
})().catch((error) => {
  process.stderr.write(String(error && error.stack) + '\\n');
  process.exit(1);
});
`;

export function describeVaultCrash<Options>(engine: {
  variable: 'MONGO_URL' | 'DATABASE_URL';
  name: string;
  /** The name of the vault index's export that opens it, and the same function. */
  opener: string;
  open(options: Options): Promise<CardVault>;
  options(url: string): Options;
  /** Removes what the test created (the database or schema). */
  drop(url: string, options: Options): Promise<void>;
}): void {
  describeWhenConfigured(
    engine.variable,
    `durability: kill -9 of a process issuing cards on the ${engine.name} vault`,
    (url) => {
      const vaultOptions = engine.options(url);
      let child: ChildProcess | undefined;
      let vault: CardVault | undefined;

      afterAll(async () => {
        child?.kill('SIGKILL');
        await vault?.close();
        await engine.drop(url, vaultOptions);
      });
      it('keeps every card it acknowledged, each decrypting, and goes on issuing after the restart', async () => {
        child = spawn(process.execPath, ['-e', issuer(engine.opener)], {
          env: { ...process.env, VAULT_OPTIONS: JSON.stringify(vaultOptions) },
          stdio: ['ignore', 'pipe', 'pipe'],
        });
        let errors = '';
        child.stderr?.on('data', (chunk: Buffer) => (errors += chunk.toString()));
        const exit = new Promise<number | null>((resolve) => child?.once('exit', (code) => resolve(code)));
        const acknowledged: IssuedCard[] = [];
        let partial = '';
        child.stdout?.on('data', (chunk: Buffer) => {
          const lines = (partial + chunk.toString()).split('\n');
          partial = lines.pop() ?? '';
          for (const line of lines) acknowledged.push(JSON.parse(line) as IssuedCard);
        });

        // Killed while its issuers keep group commits in flight.
        await waitFor(() => acknowledged.length >= 1_000 || child?.exitCode !== null, {
          what: 'the issuing process to acknowledge 1,000 cards',
          timeoutMs: 60_000,
          intervalMs: 1,
        });
        // Still issuing (a process that failed says why).
        if (child.exitCode !== null) throw new Error(`The issuing process stopped: ${errors}`);
        child.kill('SIGKILL');
        expect(await exit).toBeNull(); // killed, not failed

        const restarted = await engine.open(vaultOptions);
        vault = restarted;
        const pans = await Promise.all(
          acknowledged.map((card) => restarted.revealForHostedPage(card.vaultRef)),
        );
        expect(pans.every((revealed, i) => revealed.pan.endsWith(acknowledged[i].last4))).toBe(true);
        expect(new Set(pans.map((revealed) => revealed.pan)).size).toBe(acknowledged.length);
        // Cards committed but not yet acknowledged when it died are whole too, under the one registered KEK.
        const [kek, ...others] = await restarted.registeredKeks();
        expect({ kek, others }).toMatchObject({ kek: { kekId: 'kek-crash', status: 'active' }, others: [] });
        expect(kek.cards).toBeGreaterThanOrEqual(acknowledged.length);

        const after = await restarted.issueCard({
          bin: SANDBOX_TEST_BIN,
          lifetimeMonths: 36,
          now: new Date(),
        });
        expect((await restarted.revealForHostedPage(after.vaultRef)).pan.endsWith(after.last4)).toBe(true);
      }, 120_000);
    },
  );
}
