import { SANDBOX_TEST_BIN } from '@cip/cards/domain';
import { openEmbeddedCardVault } from '@cip/cards/vault';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { runCliCaptured } from './testing/run-cli-captured';

describe('cli: vault', () => {
  let dataDir: string;

  const cli = async (...argv: string[]) => {
    const { code, stdout, stderr } = await runCliCaptured([...argv, '--data-dir', dataDir, '--json']);
    return { code, stderr, body: stdout ? JSON.parse(stdout) : null };
  };
  const ringIds = () =>
    Object.keys(JSON.parse(readFileSync(join(dataDir, 'secrets', 'sandbox-card-vault-keks'), 'utf8')).keys);

  beforeEach(() => {
    dataDir = mkdtempSync(join(tmpdir(), 'cip-cli-vault-'));
  });
  afterEach(() => {
    rmSync(dataDir, { recursive: true, force: true });
  });

  it('rotates the KEK: every card re-wrapped and still readable, the old KEK gone from the ring and the vault', async () => {
    const platform = openEmbeddedCardVault({ dataDir, environment: 'sandbox' });
    const now = new Date('2026-11-23T10:00:00.000Z');
    const cards = await Promise.all(
      Array.from({ length: 25 }, () =>
        platform.issueCard({ bin: SANDBOX_TEST_BIN, lifetimeMonths: 36, now }),
      ),
    );
    const [oldKek] = ringIds();
    expect((await cli('vault', 'status', '--env', 'sandbox')).body).toEqual([
      { kekId: oldKek, status: 'active', cards: 25 },
    ]);

    const rotated = await cli('vault', 'rotate-kek', '--env', 'sandbox', '--batch-size', '7');
    expect(rotated.code).toBe(0);
    expect(rotated.body).toMatchObject({ resumed: false, rewrapped: 25, retired: [oldKek] });
    expect(rotated.body.kekId).not.toBe(oldKek);
    expect(ringIds()).toEqual([rotated.body.kekId]);
    expect((await cli('vault', 'status', '--env', 'sandbox')).body).toEqual([
      { kekId: rotated.body.kekId, status: 'active', cards: 25 },
    ]);

    // The running platform's vault reads every card and issues under the new KEK.
    for (const card of cards) {
      expect((await platform.revealForHostedPage(card.vaultRef)).pan.endsWith(card.last4)).toBe(true);
    }
    await platform.issueCard({ bin: SANDBOX_TEST_BIN, lifetimeMonths: 36, now });
    expect((await cli('vault', 'status', '--env', 'sandbox')).body).toEqual([
      { kekId: rotated.body.kekId, status: 'active', cards: 26 },
    ]);
    await platform.close();
  });

  it('refuses a batch size out of range, and a malformed configured KEK ring naming its variable', async () => {
    const zero = await runCliCaptured([
      'vault',
      'rotate-kek',
      '--env',
      'sandbox',
      '--batch-size',
      '0',
      '--data-dir',
      dataDir,
    ]);
    expect(zero.code).toBe(2);
    expect(zero.stderr).toContain('--batch-size takes a whole number from 1 to 10000');

    const configured = await runCliCaptured(['vault', 'status', '--env', 'sandbox', '--data-dir', dataDir], {
      env: { CARD_VAULT_KEKS_SANDBOX: 'not json' },
    });
    expect(configured.code).toBe(2);
    expect(configured.stderr).toContain('CARD_VAULT_KEKS_SANDBOX');
    expect(configured.stderr).not.toContain('not json');
  });
});
