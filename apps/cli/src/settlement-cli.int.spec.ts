import { openEmbeddedInfrastructure } from '@cip/shared/infrastructure';
import { systemClock } from '@cip/shared/runtime';
import {
  generateDepositSeed,
  HdDepositAddressDeriver,
  SIMULATED_SETTLEMENT_ADDRESS,
  SimulatedChain,
  SimulatedPayout,
} from '@cip/wallets/chain';
import { SETTLEMENT_LEDGER_STREAM } from '@cip/wallets/domain';
import { WalletsService } from '@cip/wallets/service';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { runCliCaptured } from './testing/run-cli-captured';

describe('cli: settlement run', () => {
  let dataDir: string;

  const cli = async (env: NodeJS.ProcessEnv, ...argv: string[]) => {
    const { code, stdout, stderr } = await runCliCaptured([...argv, '--data-dir', dataDir, '--json'], {
      env,
    });
    return { code, stderr, body: stdout ? JSON.parse(stdout) : null };
  };

  beforeEach(() => {
    dataDir = mkdtempSync(join(tmpdir(), 'cip-cli-settlement-'));
  });
  afterEach(() => {
    rmSync(dataDir, { recursive: true, force: true });
  });

  /** A wallet of `distributorId` with a cleared card payment of `amount` minor units, as the platform records it. */
  async function clearedPayment(distributorId: string, amount: number): Promise<void> {
    const infrastructure = openEmbeddedInfrastructure({ dataDir });
    const simulatedChain = new SimulatedChain(systemClock);
    const wallets = new WalletsService(
      {
        eventStore: (environment) => infrastructure.scope(environment).eventStore,
        readStore: (environment) => infrastructure.scope(environment).readStore,
        settle: async () => undefined,
        catchUpWallets: async () => undefined,
        chain: () => ({
          deriver: new HdDepositAddressDeriver(generateDepositSeed(), 'simulated'),
          payout: new SimulatedPayout(simulatedChain),
        }),
        simulatedChain,
      },
      systemClock,
    );
    try {
      const context = { environment: 'sandbox' as const, distributorId };
      const wallet = await wallets.provisionWallet('sandbox', {
        userId: `usr-${distributorId}`,
        distributorId,
      });
      await wallets.creditDeposit(context, wallet.id, {
        depositId: `0x${distributorId}:0`,
        amount: 10 * amount,
        transactionHash: `0x${distributorId}`,
        logIndex: 0,
        blockNumber: 1,
        fromAddress: null,
        source: 'simulation',
      });
      await wallets.placeHold(context, wallet.id, { holdId: `aut-${distributorId}`, amount });
      await wallets.settleHold(context, wallet.id, `aut-${distributorId}`, amount);
    } finally {
      await infrastructure.close();
    }
  }

  it('cuts one batch per program for the platform to pay, and a second run cuts nothing', async () => {
    await clearedPayment('dst-one', 2_500_000);
    await clearedPayment('dst-two', 1_000_000);

    const first = await cli({}, 'settlement', 'run', '--env', 'sandbox');
    expect(first).toMatchObject({ code: 0, stderr: '' });
    expect(first.body.batches).toEqual([
      expect.objectContaining({ distributorId: 'dst-one', amount: 2_500_000, items: 1 }),
      expect.objectContaining({ distributorId: 'dst-two', amount: 1_000_000, items: 1 }),
    ]);
    expect((await cli({}, 'settlement', 'run', '--env', 'sandbox')).body.batches).toEqual([]);

    const infrastructure = openEmbeddedInfrastructure({ dataDir });
    try {
      const store = infrastructure.scope('sandbox').eventStore;
      const [opened] = await store.readStream(first.body.batches[0].batchId);
      // Without SETTLEMENT_ADDRESS_SANDBOX, the sandbox's simulated chain has its own settlement address.
      expect(opened.data).toMatchObject({ settlementAddress: SIMULATED_SETTLEMENT_ADDRESS });
      expect(await store.readStream(SETTLEMENT_LEDGER_STREAM)).toHaveLength(1);
    } finally {
      await infrastructure.close();
    }
  });

  it('reports the payments waiting for a settlement address, and refuses an address that is not one', async () => {
    await clearedPayment('dst-one', 700_000);
    // A chain without SETTLEMENT_ADDRESS_SANDBOX: no address, the payment waits.
    const chainEnv = {
      CHAIN_RPC_URL_SANDBOX: 'http://127.0.0.1:9',
      CHAIN_ID_SANDBOX: '31337',
      USDC_CONTRACT_ADDRESS_SANDBOX: '0x5FbDB2315678afecb367f032d93F642f64180aa3',
    };
    const waiting = await cli(chainEnv, 'settlement', 'run', '--env', 'sandbox');
    expect(waiting.body).toMatchObject({
      batches: [],
      waiting: [{ distributorId: 'dst-one', reason: 'no_settlement_address', items: 1, amount: 700_000 }],
    });

    const wrong = await runCliCaptured(['settlement', 'run', '--env', 'sandbox', '--data-dir', dataDir], {
      env: { SETTLEMENT_ADDRESS_SANDBOX: '0x38651ed2fbc13930d11fd4b1d88ddb974908B51F' },
    });
    expect(wrong.code).not.toBe(0);
    expect(wrong.stderr).toContain('SETTLEMENT_ADDRESS_SANDBOX');
  });
});
