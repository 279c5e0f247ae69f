import { SANDBOX_TEST_BIN } from '@cip/cards/domain';
import { CardsModuleOptions, SandboxFulfilmentProvider } from '@cip/cards/service';
import { cardVaultFile, openEmbeddedCardVault } from '@cip/cards/vault';
import { ENVIRONMENTS } from '@cip/shared/contracts';

/** How long the platform's cards are valid (expiry at the end of the month, three years on). */
const CARD_LIFETIME_MONTHS = 36;

/** The vault files, checkpointed by the embedded infrastructure's one checkpoint worker. */
export const cardVaultFiles = (dataDir: string): string[] =>
  ENVIRONMENTS.map((environment) => cardVaultFile(dataDir, environment));

/**
 * The embedded runtime's card vaults, one SQLite file and key set per environment under DATA_DIR. The
 * sandbox issues from the Visa test BIN; production issues no card until a program BIN is configured
 * (not built yet), so no test number can reach a live network.
 */
export function embeddedCardsOptions(dataDir: string): CardsModuleOptions {
  const vaults = new Map(
    ENVIRONMENTS.map((environment) => [
      environment,
      openEmbeddedCardVault({ dataDir, environment, checkpointedElsewhere: true }),
    ]),
  );
  const sandboxFulfilment = new SandboxFulfilmentProvider();
  return {
    vault: (environment) => {
      const vault = vaults.get(environment);
      if (!vault) throw new Error(`No card vault for the environment ${environment}`);
      return vault;
    },
    issuing: (environment) =>
      environment === 'sandbox' ? { bin: SANDBOX_TEST_BIN, lifetimeMonths: CARD_LIFETIME_MONTHS } : null,
    // Production has no card bureau yet (nor a BIN): only the sandbox ships, through its simulation.
    fulfilment: (environment) => (environment === 'sandbox' ? sandboxFulfilment : null),
    close: async () => {
      await Promise.all([...vaults.values()].map((vault) => vault.close()));
    },
  };
}
