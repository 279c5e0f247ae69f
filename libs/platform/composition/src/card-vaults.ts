import { SANDBOX_TEST_BIN } from '@cip/cards/domain';
import { CardsModuleOptions, SandboxFulfilmentProvider } from '@cip/cards/service';
import {
  CardVault,
  cardVaultFile,
  openEmbeddedCardVault,
  openMongoCardVault,
  openPostgresCardVault,
} from '@cip/cards/vault';
import { ENVIRONMENTS, type Environment } from '@cip/shared/contracts';
import type { PlatformConfig, PlatformMetrics } from '@cip/shared/runtime';

/** The vault files, checkpointed by the embedded infrastructure's one checkpoint worker. */
export const cardVaultFiles = (dataDir: string): string[] =>
  ENVIRONMENTS.map((environment) => cardVaultFile(dataDir, environment));

/**
 * The embedded runtime's card vaults, one SQLite file and key set per environment under DATA_DIR, with the
 * keys the configuration gives (CARD_VAULT_*_<ENV>; the others generated on first start). The sandbox
 * issues from CARD_BIN_SANDBOX, else the Visa test BIN; production only from CARD_BIN_PRODUCTION, and no
 * card without it, so no test number can reach a live network. Each vault's group commits are observed
 * by `metrics` (`card_vault_group_commit_puts`).
 */
export function embeddedCardsOptions(
  dataDir: string,
  cards: PlatformConfig['cards'],
  metrics?: PlatformMetrics,
): CardsModuleOptions {
  const vaults = new Map(
    ENVIRONMENTS.map((environment) => [
      environment,
      openEmbeddedCardVault({
        dataDir,
        environment,
        configured: cards[environment].vaultKeys,
        checkpointedElsewhere: true,
        onCommit: (puts) => metrics?.cardVaultBatchSize.observe({ environment }, puts),
      }),
    ]),
  );
  return cardsOptionsOver(vaults, cards);
}

/**
 * The card vaults of a runtime on servers, one per environment, every key configured (CARD_VAULT_*_<ENV>:
 * the cards service's replicas share the vault): on PostgreSQL (schema `card_vault_<env>` of
 * CARD_VAULT_DATABASE_URL, by default DATABASE_URL) or on MongoDB (database `cip_<env>_vault` of MONGO_URL).
 */
export async function serverCardsOptions(
  server: { databaseUrl: string } | { mongoUrl: string },
  cards: PlatformConfig['cards'],
  metrics?: PlatformMetrics,
): Promise<CardsModuleOptions> {
  const vaults = new Map<Environment, CardVault>();
  try {
    for (const environment of ENVIRONMENTS) {
      const options = {
        environment,
        configured: cards[environment].vaultKeys,
        onCommit: (puts: number) => metrics?.cardVaultBatchSize.observe({ environment }, puts),
      };
      vaults.set(
        environment,
        'databaseUrl' in server
          ? await openPostgresCardVault({ ...options, databaseUrl: server.databaseUrl })
          : await openMongoCardVault({ ...options, mongoUrl: server.mongoUrl }),
      );
    }
  } catch (error) {
    await Promise.all([...vaults.values()].map((vault) => vault.close()));
    throw error;
  }
  return cardsOptionsOver(vaults, cards);
}

/** What either runtime gives the cards context over its vaults: BINs, lifetimes, the sandbox's bureau. */
function cardsOptionsOver(
  vaults: ReadonlyMap<Environment, CardVault>,
  cards: PlatformConfig['cards'],
): CardsModuleOptions {
  const sandboxFulfilment = new SandboxFulfilmentProvider();
  return {
    vault: (environment) => {
      const vault = vaults.get(environment);
      if (!vault) throw new Error(`No card vault for the environment ${environment}`);
      return vault;
    },
    // Production has no card bureau yet: only the sandbox ships, through its simulation.
    fulfilment: (environment) => (environment === 'sandbox' ? sandboxFulfilment : null),
    issuing: (environment) => {
      const { bin, lifetimeMonths } = cards[environment];
      const issuingBin = bin ?? (environment === 'sandbox' ? SANDBOX_TEST_BIN : undefined);
      return issuingBin ? { bin: issuingBin, lifetimeMonths } : null;
    },
    close: async () => {
      await Promise.all([...vaults.values()].map((vault) => vault.close()));
    },
  };
}
