import { DynamicModule, Module } from '@nestjs/common';
import { AUTHORIZATIONS_OPTIONS } from '@cip/authorizations/service';
import { staffCredentialsFile } from '@cip/backoffice/service';
import { CARDS_OPTIONS } from '@cip/cards/service';
import { DistributorsModule } from '@cip/distributors/service';
import { GatewayHttpModule } from '@cip/gateway/http';
import { KYC_OPTIONS, loadKycLinkKey } from '@cip/kyc/service';
import { embeddedGooglePayKeys, TOKENIZATION_OPTIONS } from '@cip/tokenization/service';
import { embeddedAuthenticationValueKeys, THREE_DS_OPTIONS } from '@cip/three-ds/service';
import { PLATFORM_CONTEXTS, PLATFORM_PERSONAL_DATA } from '@cip/platform/registry';
import {
  ContextsModule,
  controllersOf,
  InfrastructureModule,
  openEmbeddedInfrastructure,
} from '@cip/shared/infrastructure';
import { Clock, Logger, METRICS, PlatformConfig, PlatformMetrics } from '@cip/shared/runtime';
import { SIMULATOR_OPTIONS, SimulatorModuleOptions } from '@cip/simulator/service';
import { WALLETS_OPTIONS, WalletsModuleOptions } from '@cip/wallets/service';
import { WEBHOOKS_OPTIONS, WebhooksModuleOptions } from '@cip/webhooks/service';
import { cardVaultFiles, embeddedCardsOptions } from './card-vaults';

export interface PlatformModuleOptions {
  dataDir: string;
  logger: Logger;
  metrics?: PlatformMetrics;
  clock?: Clock;
  /** How often live subscriptions look for appends made by another process (the CLI). */
  pollIntervalMs?: number;
  /** Key of hosted KYC link signatures (KYC_LINK_SECRET); generated under DATA_DIR/secrets when unset. */
  kycLinkSecret?: string;
  /** PERSONAL_DATA_MASTER_KEY; generated under DATA_DIR/secrets when unset. */
  personalDataMasterKey?: string;
  /** Chain adapters of the wallets context. */
  wallets: WalletsModuleOptions;
  webhooks: Omit<WebhooksModuleOptions, 'dataDir'>;
  /** BINs, card lifetimes and card vault keys per environment (CARD_*_<ENV>). */
  cards: PlatformConfig['cards'];
  /** The card network's ISO 8583 endpoint for the sandbox (CARD_NETWORK_ISO_ADDRESS); none: no link. */
  cardNetwork?: PlatformConfig['cardNetwork'];
  /** CARD_NETWORK_ZPK: the zone PIN key the issuer decrypts DE-052 PIN blocks under. */
  cardNetworkZpk: string;
  /** The sandbox card network, started before the app (`startSandboxNetwork`). */
  simulator: SimulatorModuleOptions;
}

/**
 * The embedded runtime: every context of the registry in one process, on SQLite files under DATA_DIR, with
 * the in-process bus driving projections, recorders and sagas, and the /v1 gateway in front.
 */
@Module({})
export class PlatformModule {
  static forRoot(options: PlatformModuleOptions): DynamicModule {
    return {
      module: PlatformModule,
      imports: [
        InfrastructureModule.forRoot({
          open: ({ metrics, logger }) =>
            openEmbeddedInfrastructure({
              dataDir: options.dataDir,
              metrics,
              logger,
              pollIntervalMs: options.pollIntervalMs,
              personalData: { policies: PLATFORM_PERSONAL_DATA, masterKey: options.personalDataMasterKey },
              checkpointedFiles: [...cardVaultFiles(options.dataDir), staffCredentialsFile(options.dataDir)],
            }),
          runConsumers: true,
          logger: options.logger,
          metrics: options.metrics,
          clock: options.clock,
        }),
        DistributorsModule,
        ContextsModule.forRoot({
          contexts: PLATFORM_CONTEXTS,
          // The adapters and secrets this runtime chose for the contexts.
          providers: [
            {
              provide: KYC_OPTIONS,
              useValue: {
                linkKey: loadKycLinkKey({ dataDir: options.dataDir, fromEnv: options.kycLinkSecret }),
              },
            },
            { provide: WALLETS_OPTIONS, useValue: options.wallets },
            { provide: WEBHOOKS_OPTIONS, useValue: { ...options.webhooks, dataDir: options.dataDir } },
            {
              provide: CARDS_OPTIONS,
              inject: [METRICS],
              useFactory: (metrics: PlatformMetrics) =>
                embeddedCardsOptions(options.dataDir, options.cards, metrics),
            },
            { provide: SIMULATOR_OPTIONS, useValue: options.simulator },
            {
              provide: AUTHORIZATIONS_OPTIONS,
              useValue: {
                network: options.cardNetwork && {
                  environment: 'sandbox',
                  ...options.cardNetwork,
                  zpkHex: options.cardNetworkZpk,
                },
                decisioning: {
                  dataDir: options.dataDir,
                  allowPrivateUrls: options.webhooks.allowPrivateUrls,
                },
              },
            },
            {
              provide: THREE_DS_OPTIONS,
              useValue: { authenticationValueKey: embeddedAuthenticationValueKeys(options.dataDir) },
            },
            {
              provide: TOKENIZATION_OPTIONS,
              useValue: { googlePayKeys: embeddedGooglePayKeys(options.dataDir) },
            },
          ],
        }),
        GatewayHttpModule.forRoot({
          controllers: controllersOf(PLATFORM_CONTEXTS),
        }),
      ],
    };
  }
}
