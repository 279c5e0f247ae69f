import { DynamicModule, Module } from '@nestjs/common';
import { staffCredentialsFile } from '@cip/backoffice/service';
import { DistributorsModule } from '@cip/distributors/service';
import { GatewayHttpModule } from '@cip/gateway/http';
import { contextCheckpointedFiles, contextOptionsProviders } from '@cip/platform/composition';
import { PLATFORM_CONTEXTS, PLATFORM_PERSONAL_DATA } from '@cip/platform/registry';
import {
  ContextsModule,
  controllersOf,
  InfrastructureModule,
  openEmbeddedInfrastructure,
} from '@cip/shared/infrastructure';
import { Clock, Logger, PlatformConfig, PlatformMetrics } from '@cip/shared/runtime';
import type { SandboxNetwork } from '@cip/simulator/service';

export interface PlatformModuleOptions {
  config: PlatformConfig;
  logger: Logger;
  metrics?: PlatformMetrics;
  clock?: Clock;
  /** How often live subscriptions look for appends made by another process (the CLI). */
  pollIntervalMs?: number;
  /** The card network's ISO 8583 endpoint the sandbox's issuer links to; none: no link. */
  cardNetwork?: { host: string; port: number };
  /** The sandbox card network, started before the app (`startSandboxNetwork`). */
  sandboxNetwork: SandboxNetwork;
}

/**
 * The embedded runtime: every context of the registry in one process, on SQLite files under DATA_DIR, with
 * the in-process bus driving projections, recorders and sagas, and the /v1 gateway in front. The contexts'
 * options are the ones every service of the split platform gets (`@cip/platform/composition`).
 */
@Module({})
export class PlatformModule {
  static forRoot(options: PlatformModuleOptions): DynamicModule {
    const { config } = options;
    const settings = { ...options, driver: 'embedded' as const };
    return {
      module: PlatformModule,
      imports: [
        InfrastructureModule.forRoot({
          open: ({ metrics, logger }) =>
            openEmbeddedInfrastructure({
              dataDir: config.dataDir,
              walLimitBytes: config.walLimitBytes,
              metrics,
              logger,
              pollIntervalMs: options.pollIntervalMs,
              personalData: { policies: PLATFORM_PERSONAL_DATA, masterKey: config.personalDataMasterKey },
              checkpointedFiles: [
                ...contextCheckpointedFiles(PLATFORM_CONTEXTS, settings),
                staffCredentialsFile(config.dataDir),
              ],
            }),
          runConsumers: true,
          process: 'platform',
          logger: options.logger,
          metrics: options.metrics,
          clock: options.clock,
        }),
        DistributorsModule,
        ContextsModule.forRoot({
          contexts: PLATFORM_CONTEXTS,
          providers: contextOptionsProviders(PLATFORM_CONTEXTS, settings),
        }),
        GatewayHttpModule.forRoot({
          controllers: controllersOf(PLATFORM_CONTEXTS),
        }),
      ],
    };
  }
}
