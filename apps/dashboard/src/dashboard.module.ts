import { Controller, DynamicModule, Module } from '@nestjs/common';
import { OperatorModule, PublicOperatorRoute } from '@cip/backoffice/http';
import {
  type BackofficeOptions,
  mongoStaffCredentials,
  postgresStaffCredentials,
  SqliteStaffCredentialStore,
  staffCredentialsFile,
} from '@cip/backoffice/service';
import { DistributorsModule } from '@cip/distributors/service';
import { serviceClients } from '@cip/platform/composition';
import {
  InfrastructureModule,
  InfrastructureModuleOptions,
  loadPersonalDataMasterKey,
  readStoreDriver,
  serviceInfrastructure,
  SystemController,
} from '@cip/shared/infrastructure';
import { personalDataMasterKey } from '@cip/shared/eventing';
import { readDistributedConfig } from '@cip/shared/infrastructure/distributed';
import { readPostgresConfig } from '@cip/shared/infrastructure/postgres';
import { dashboardBaseUrl, type Logger, type PlatformConfig } from '@cip/shared/runtime';
import { ContextTransportModule } from '@cip/shared/transport';

/** /health and /metrics on DASHBOARD_PORT, open without a session, as the gateway's are on PORT. */
@PublicOperatorRoute()
@Controller()
class DashboardSystemController extends SystemController {}

/**
 * What the operator app takes from the platform in the distributed runtime (the embedded runtime bridges
 * the same tokens from its container): the stores (INFRASTRUCTURE: the control scope's staff and audit
 * streams), CONTROL_PLANE_API and PROGRAM_DIRECTORY from the control store, and every context's contract
 * tokens as clients of the service hosting it (PLATFORM_SERVICES; the Events through the webhooks service),
 * one breaker per service. Runs no consumers.
 */
@Module({})
export class DashboardPlatformModule {
  static forRoot(options: {
    infrastructure: InfrastructureModuleOptions;
    /** Where the services' `<SERVICE>_HOST` / `<SERVICE>_TCP_PORT` are read (the process's environment). */
    env?: NodeJS.ProcessEnv;
  }): DynamicModule {
    return {
      module: DashboardPlatformModule,
      imports: [
        InfrastructureModule.forRoot({ ...options.infrastructure, runConsumers: false }),
        DistributorsModule,
        ...serviceClients(null, options.env).map((service) => ContextTransportModule.forClient(service)),
      ],
      controllers: [DashboardSystemController],
    };
  }
}

/**
 * The operator app's root module in the split platform: the platform above on the stores STORE_DRIVER names,
 * and the backoffice with its staff credentials on MongoDB (`cip_staff_credentials`, distributed) or in
 * DATA_DIR/staff-credentials.sqlite (embedded). The health page gathers every process's report from the
 * control store (ProcessHealthReporter).
 */
export function dashboardModule(options: {
  config: PlatformConfig;
  logger: Logger;
  env?: NodeJS.ProcessEnv;
}): DynamicModule {
  const { config, logger, env = process.env } = options;
  const driver = readStoreDriver(env);
  const embedded = driver === 'embedded';
  const credentialsFile = staffCredentialsFile(config.dataDir);
  const credentials = (): Pick<BackofficeOptions, 'openCredentials' | 'masterKey'> => {
    if (embedded) {
      return {
        openCredentials: SqliteStaffCredentialStore.opener(credentialsFile),
        masterKey: loadPersonalDataMasterKey(config.dataDir, config.personalDataMasterKey),
      };
    }
    if (driver === 'postgres') {
      const { databaseUrl, personalData } = readPostgresConfig('cip-dashboard', env);
      return {
        openCredentials: postgresStaffCredentials({ databaseUrl }),
        masterKey: personalDataMasterKey(personalData.masterKey),
      };
    }
    const { mongoUrl, personalData } = readDistributedConfig('cip-dashboard', env);
    return {
      openCredentials: mongoStaffCredentials({ mongoUrl }),
      masterKey: personalDataMasterKey(personalData.masterKey),
    };
  };
  return OperatorModule.forRoot({
    platform: DashboardPlatformModule.forRoot({
      infrastructure: serviceInfrastructure('dashboard', {
        contexts: [],
        runConsumers: false,
        logger,
        checkpointedFiles: embedded ? [credentialsFile] : [],
        env,
      }),
      env,
    }),
    backoffice: {
      ...credentials(),
      invitationUrl: (token) => `${dashboardBaseUrl(config)}/invitations/${token}`,
    },
  });
}
