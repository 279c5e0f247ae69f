import { ConsumerHost, openEmbeddedInfrastructure } from '@cip/shared/infrastructure';
import { systemClock } from '@cip/shared/runtime';
import {
  generateDepositSeed,
  HdDepositAddressDeriver,
  SimulatedChain,
  SimulatedPayout,
} from '@cip/wallets/chain';
import { walletsProjection } from '@cip/wallets/read-models';
import { walletTransactionsReadModel } from './wallet-transactions.read-model';
import { WalletsService } from './wallets.service';

/**
 * The wallets service alone on the embedded store of `dataDir`, its read models kept by a running consumer
 * host as the platform wires them (`readModels: false` leaves them out: a bench measuring the command path
 * alone), on the simulated chain. For process-level tests of the ledger (a storm in a child process killed
 * with SIGKILL, then the same directory opened again) and the ledger benches.
 */
export async function openEmbeddedWallets(
  dataDir: string,
  options: { readModels?: boolean; pollIntervalMs?: number } = {},
) {
  const infrastructure = openEmbeddedInfrastructure({ dataDir, pollIntervalMs: options.pollIntervalMs });
  const consumers = new ConsumerHost();
  if (options.readModels !== false) {
    consumers.registerProjection(walletsProjection);
    consumers.registerReadModel(walletTransactionsReadModel);
  }
  await consumers.start(infrastructure);
  const simulatedChain = new SimulatedChain(systemClock);
  const chain = {
    deriver: new HdDepositAddressDeriver(generateDepositSeed(), 'simulated'),
    payout: new SimulatedPayout(simulatedChain),
  };
  const wallets = new WalletsService(
    {
      eventStore: (environment) => infrastructure.scope(environment).eventStore,
      readStore: (environment) => infrastructure.scope(environment).readStore,
      settle: (environment) => consumers.drain(environment),
      catchUpWallets: (environment) => consumers.drain(environment),
      chain: () => chain,
      simulatedChain,
    },
    systemClock,
  );
  return {
    wallets,
    infrastructure,
    consumers,
    async close() {
      await consumers.stop();
      await infrastructure.close();
    },
  };
}
