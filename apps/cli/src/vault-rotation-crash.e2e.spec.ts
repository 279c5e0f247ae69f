import { SANDBOX_TEST_BIN } from '@cip/cards/domain';
import { openEmbeddedCardVault, type CardVault, type IssuedCard } from '@cip/cards/vault';
import { waitFor } from '@cip/shared/testing';
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

/** The built CLI, as `npm run cli` runs it (the e2e project's global setup builds dist/ first). */
const CLI_MAIN = join(__dirname, '..', '..', '..', 'dist/apps/cli/src/main.js');

function rotate(
  dataDir: string,
  batchSize: number,
): {
  child: ChildProcess;
  exit: Promise<{ code: number | null; out: string }>;
} {
  const child = spawn(
    process.execPath,
    [
      CLI_MAIN,
      'vault',
      'rotate-kek',
      '--env',
      'sandbox',
      '--batch-size',
      String(batchSize),
      '--json',
      '--data-dir',
      dataDir,
    ],
    { stdio: ['ignore', 'pipe', 'pipe'] },
  );
  let out = '';
  child.stdout?.on('data', (chunk: Buffer) => (out += chunk.toString()));
  child.stderr?.on('data', (chunk: Buffer) => (out += chunk.toString()));
  const exit = new Promise<{ code: number | null; out: string }>((resolve) =>
    child.once('exit', (code) => resolve({ code, out })),
  );
  return { child, exit };
}

describe('durability: kill -9 in the middle of a KEK rotation, while the platform issues cards', () => {
  const dataDir = mkdtempSync(join(tmpdir(), 'cip-vault-crash-'));
  const now = new Date('2026-11-23T10:00:00.000Z');
  let platform: CardVault;
  let running: ChildProcess | undefined;

  afterAll(async () => {
    running?.kill('SIGKILL');
    await platform?.close();
    rmSync(dataDir, { recursive: true, force: true });
  });

  it('finishes the rotation when run again: every card decrypts, and only the new KEK is left', async () => {
    // The platform's vault (this process) beside the CLI's (a child process) on the same files.
    platform = openEmbeddedCardVault({ dataDir, environment: 'sandbox' });
    const issue = () => platform.issueCard({ bin: SANDBOX_TEST_BIN, lifetimeMonths: 36, now });
    const cards: IssuedCard[] = await Promise.all(Array.from({ length: 4_000 }, issue));
    const [oldKek] = await platform.registeredKeks();

    const first = rotate(dataDir, 1);
    running = first.child;
    // Cards keep being issued while the CLI rotates, until it is killed.
    let killed = false;
    const issuer = async () => {
      while (!killed) cards.push(await issue());
    };
    const issuers = Array.from({ length: 4 }, issuer);
    // Killed once it has switched to the new KEK and re-wrapped part of the keys, one per transaction.
    await waitFor(
      async () => {
        const keks = await platform.registeredKeks();
        const active = keks.find((kek) => kek.status === 'active');
        return active?.kekId !== oldKek.kekId && (active?.cards ?? 0) >= 10;
      },
      {
        what: 'the rotation to have switched KEK and re-wrapped some data keys',
        timeoutMs: 60_000,
        intervalMs: 1,
      },
    );
    first.child.kill('SIGKILL');
    const { code } = await first.exit;
    killed = true;
    await Promise.all(issuers);
    expect(code).toBeNull(); // killed, not finished
    const midway = await platform.registeredKeks();
    expect(midway.find((kek) => kek.kekId === oldKek.kekId)).toMatchObject({ status: 'retiring' });
    expect(midway.find((kek) => kek.kekId === oldKek.kekId)?.cards).toBeGreaterThan(0);

    const second = rotate(dataDir, 200);
    running = second.child;
    const { code: finished, out } = await second.exit;
    expect({ finished, out }).toMatchObject({ finished: 0 });
    const rotation = JSON.parse(out);
    expect(rotation).toMatchObject({ resumed: true, retired: [oldKek.kekId] });

    expect(await platform.registeredKeks()).toEqual([
      { kekId: rotation.kekId, status: 'active', cards: cards.length },
    ]);
    const ring = JSON.parse(readFileSync(join(dataDir, 'secrets', 'sandbox-card-vault-keks'), 'utf8'));
    expect(Object.keys(ring.keys)).toEqual([rotation.kekId]);
    const fresh = openEmbeddedCardVault({ dataDir, environment: 'sandbox' });
    try {
      const pans = await Promise.all(cards.map((card) => fresh.revealForHostedPage(card.vaultRef)));
      expect(pans.every((revealed, i) => revealed.pan.endsWith(cards[i].last4))).toBe(true);
      expect(new Set(pans.map((revealed) => revealed.pan)).size).toBe(cards.length);
    } finally {
      await fresh.close();
    }
  }, 120_000);
});
