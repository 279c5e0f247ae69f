import type { Provider } from '@nestjs/common';
import { AUTHORIZATIONS_OPTIONS, type AuthorizationsModuleOptions } from '@cip/authorizations/service';
import { CARDS_OPTIONS } from '@cip/cards/service';
import { KYC_OPTIONS, loadKycLinkKey, type KycOptions } from '@cip/kyc/service';
import type { ContextDefinition, StoreDriver } from '@cip/shared/infrastructure';
import { type Logger, METRICS, type PlatformConfig, PlatformMetrics, systemClock } from '@cip/shared/runtime';
import { SIMULATOR_OPTIONS, type SandboxNetwork, startSandboxNetwork } from '@cip/simulator/service';
import { embeddedAuthenticationValueKeys, THREE_DS_OPTIONS } from '@cip/three-ds/service';
import { embeddedGooglePayKeys, TOKENIZATION_OPTIONS } from '@cip/tokenization/service';
import { WALLETS_OPTIONS } from '@cip/wallets/service';
import { WEBHOOKS_OPTIONS, type WebhooksModuleOptions } from '@cip/webhooks/service';
import { cardVaultFiles, embeddedCardsOptions, serverCardsOptions } from './card-vaults';
import { walletChainOptions } from './wallet-chain';

/** What the options of the contexts are made from, in whichever process hosts them. */
export interface ContextOptionsSettings {
  config: PlatformConfig;
  logger: Logger;
  /** The stores' driver: the card vaults follow it (SQLite files under DATA_DIR, PostgreSQL, or MongoDB). */
  driver: StoreDriver;
  /** MONGO_URL, with the distributed driver. */
  mongoUrl?: string;
  /** CARD_VAULT_DATABASE_URL (by default DATABASE_URL), with the postgres driver: the card vaults' database. */
  vaultDatabaseUrl?: string;
  /** The card network the sandbox's issuer links to (ISO 8583 over TCP); none: no link. */
  cardNetwork?: { host: string; port: number };
  /**
   * The sandbox card network when the app started it itself (the embedded platform: the issuer needs its
   * address first); otherwise the process hosting the simulator starts it with the context.
   */
  sandboxNetwork?: SandboxNetwork;
}

/**
 * The options each context takes from the app that hosts it, under its own token (KYC_OPTIONS, ...): the
 * one place the platform's configuration becomes the contexts' adapters and secrets, for the embedded
 * platform and for every service of the distributed runtime alike. Secrets the configuration does not give
 * are generated under DATA_DIR/secrets on first start; with several replicas of a service (or hosts), set
 * them: each replica would otherwise make its own.
 */
const CONTEXT_OPTIONS: Record<string, (settings: ContextOptionsSettings) => Provider> = {
  kyc: ({ config }) => ({
    provide: KYC_OPTIONS,
    useValue: {
      linkKey: loadKycLinkKey({ dataDir: config.dataDir, fromEnv: config.kycLinkSecret }),
    } satisfies KycOptions,
  }),
  wallets: ({ config, logger }) => ({
    provide: WALLETS_OPTIONS,
    useValue: walletChainOptions(config, logger),
  }),
  webhooks: ({ config }) => ({
    provide: WEBHOOKS_OPTIONS,
    useValue: { ...config.webhooks, dataDir: config.dataDir } satisfies WebhooksModuleOptions,
  }),
  cards: ({ config, driver, mongoUrl, vaultDatabaseUrl: databaseUrl }) => ({
    provide: CARDS_OPTIONS,
    inject: [METRICS],
    useFactory: (metrics: PlatformMetrics) => {
      if (driver === 'embedded') return embeddedCardsOptions(config.dataDir, config.cards, metrics);
      if (driver === 'postgres') {
        if (!databaseUrl)
          throw new Error(
            'CARD_VAULT_DATABASE_URL or DATABASE_URL must be set: the card vaults are on PostgreSQL',
          );
        return serverCardsOptions({ databaseUrl }, config.cards, metrics);
      }
      if (!mongoUrl) throw new Error('MONGO_URL must be set: the distributed card vaults are on MongoDB');
      return serverCardsOptions({ mongoUrl }, config.cards, metrics);
    },
  }),
  simulator: ({ config, logger, sandboxNetwork }) => ({
    provide: SIMULATOR_OPTIONS,
    useFactory: async () => {
      if (sandboxNetwork) return sandboxNetwork.options;
      const network = await startSandboxNetwork({
        config: { ...config.simulator, zpkHex: config.cardNetworkZpk },
        dataDir: config.dataDir,
        clock: systemClock,
        onEvent: (event) => {
          if (event.type === 'connected' || event.type === 'disconnected')
            logger.info(event, 'card network link');
        },
      });
      logger.info({ address: network.address }, 'sandbox card network listening for the issuer');
      return network.options;
    },
  }),
  authorizations: ({ config, cardNetwork }) => ({
    provide: AUTHORIZATIONS_OPTIONS,
    useValue: {
      network: cardNetwork && { environment: 'sandbox', ...cardNetwork, zpkHex: config.cardNetworkZpk },
      decisioning: {
        dataDir: config.dataDir,
        secretsKey: config.decisioningSecretsKey,
        allowPrivateUrls: config.webhooks.allowPrivateUrls,
      },
      unrecordedHolds: { afterMs: config.unrecordedHoldAfterMs },
    } satisfies AuthorizationsModuleOptions,
  }),
  'three-ds': ({ config }) => ({
    provide: THREE_DS_OPTIONS,
    useValue: {
      authenticationValueKey: embeddedAuthenticationValueKeys(
        config.dataDir,
        config.threeDsAuthenticationValueKeys,
      ),
    },
  }),
  tokenization: ({ config }) => ({
    provide: TOKENIZATION_OPTIONS,
    useValue: { googlePayKeys: embeddedGooglePayKeys(config.dataDir) },
  }),
};

/** The options providers of the contexts a process hosts (only those: nothing is opened for the others). */
export const contextOptionsProviders = (
  contexts: readonly ContextDefinition[],
  settings: ContextOptionsSettings,
): Provider[] => contexts.flatMap((context) => CONTEXT_OPTIONS[context.name]?.(settings) ?? []);

/**
 * The SQLite files of the hosted contexts' own stores (the card vaults) that the embedded infrastructure's
 * one checkpoint worker runs.
 */
export const contextCheckpointedFiles = (
  contexts: readonly ContextDefinition[],
  settings: Pick<ContextOptionsSettings, 'config' | 'driver'>,
): string[] =>
  settings.driver === 'embedded' && contexts.some((context) => context.name === 'cards')
    ? cardVaultFiles(settings.config.dataDir)
    : [];
