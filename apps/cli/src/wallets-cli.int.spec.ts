import { openEmbeddedInfrastructure } from '@cip/shared/infrastructure';
import { systemClock } from '@cip/shared/runtime';
import {
  HdDepositAddressDeriver,
  loadDepositSeed,
  SimulatedChain,
  SimulatedPayout,
} from '@cip/wallets/chain';
import { walletIdOf, WalletsService } from '@cip/wallets/service';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { runCliCaptured } from './testing/run-cli-captured';

describe('cli: wallets', () => {
  let dataDir: string;

  const cli = async (...argv: string[]) => {
    const { code, stdout, stderr } = await runCliCaptured([...argv, '--data-dir', dataDir, '--json']);
    return { code, stderr, body: stdout ? JSON.parse(stdout) : null };
  };

  beforeEach(() => {
    dataDir = mkdtempSync(join(tmpdir(), 'cip-cli-wallets-'));
  });
  afterEach(() => {
    rmSync(dataDir, { recursive: true, force: true });
  });

  /** A platform whose deriver failed when the user was activated: the wallet is recorded as failed. */
  async function failedProvisioning(userId: string): Promise<void> {
    const infrastructure = openEmbeddedInfrastructure({ dataDir });
    const simulatedChain = new SimulatedChain(systemClock);
    const wallets = new WalletsService(
      {
        eventStore: (environment) => infrastructure.scope(environment).eventStore,
        readStore: (environment) => infrastructure.scope(environment).readStore,
        settle: async () => undefined,
        catchUpWallets: async () => undefined,
        chain: () => ({
          deriver: {
            chain: 'simulated',
            addressAt: () => {
              throw new Error('seed unreadable');
            },
          },
          payout: new SimulatedPayout(simulatedChain),
        }),
        simulatedChain,
      },
      systemClock,
    );
    try {
      const view = await wallets.provisionWallet('sandbox', { userId, distributorId: 'dst-cli' });
      expect(view.status).toBe('provisioning_failed');
    } finally {
      await infrastructure.close();
    }
  }

  it('retries a failed provisioning with the data directory’s seed, then holds and releases the wallet', async () => {
    await failedProvisioning('usr-cli');
    const retried = await cli('wallets', 'retry-provisioning', 'usr-cli', '--env', 'sandbox');
    expect(retried.code).toBe(0);
    expect(retried.body).toMatchObject({ id: walletIdOf('usr-cli'), status: 'active', error: null });
    // The address at index 1 of the environment's seed (index 0 went to the failed attempt).
    const seed = loadDepositSeed({ dataDir, environment: 'sandbox' });
    expect(retried.body.depositAddress).toBe(new HdDepositAddressDeriver(seed, 'simulated').addressAt(1));

    const held = await cli('wallets', 'hold', retried.body.id, '--env', 'sandbox', '--reason', 'RFI pending');
    expect(held.body.complianceHold).toMatchObject({ reason: 'RFI pending' });
    const released = await cli(
      'wallets',
      'release',
      retried.body.id,
      '--env',
      'sandbox',
      '--reason',
      'RFI answered',
    );
    expect(released.body.complianceHold).toBeNull();
  });

  it('fails with a clear message for a user without a wallet', async () => {
    const run = await cli('wallets', 'retry-provisioning', 'usr-unknown', '--env', 'sandbox');
    expect(run.code).toBe(1);
    expect(run.stderr).toMatch(/usr-unknown was not found/);
  });
});
