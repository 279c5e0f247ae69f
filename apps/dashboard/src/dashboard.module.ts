import { Controller, DynamicModule, Module } from '@nestjs/common';
import { OperatorModule, PublicOperatorRoute } from '@cip/backoffice/http';
import { mongoStaffCredentials } from '@cip/backoffice/service';
import { DistributorsModule } from '@cip/distributors/service';
import { eventsContext } from '@cip/events/service';
import { PLATFORM_CONTEXTS } from '@cip/platform/registry';
import {
  ContextsModule,
  InfrastructureModule,
  InfrastructureModuleOptions,
  SystemController,
} from '@cip/shared/infrastructure';
import { personalDataMasterKey } from '@cip/shared/eventing';
import {
  distributedInfrastructure,
  readDistributedConfig,
  readPort,
} from '@cip/shared/infrastructure/distributed';
import { dashboardBaseUrl, type Logger, type PlatformConfig } from '@cip/shared/runtime';
import { ContextTransportModule } from '@cip/shared/transport';

/**
 * The TCP port of each context service by default (`<SERVICE>_TCP_PORT` overrides it): users, cards,
 * authorizations and simulator as their apps listen; the others are the ports their apps are to take
 * (issue 15). A service without an app answers `503 service_unavailable` through its breaker.
 */
export const SERVICE_TCP_PORTS: Readonly<Record<string, number>> = {
  users: 4010,
  kyc: 4020,
  cards: 4030,
  wallets: 4040,
  authorizations: 4050,
  simulator: 4060,
  webhooks: 4070,
  tokenization: 4080,
  'three-ds': 4090,
};

/** The contexts read in this process, as the gateway reads them (their services' consumers keep them). */
const LOCAL_CONTEXTS = [eventsContext];
/** Every other registered context is reached over TCP, at its service. */
const REMOTE_CONTEXTS = PLATFORM_CONTEXTS.filter((context) => !LOCAL_CONTEXTS.includes(context));

/** `<SERVICE>_HOST` (default `localhost`) and `<SERVICE>_TCP_PORT` of a context service. */
export function serviceAddress(service: string, env: NodeJS.ProcessEnv = process.env) {
  const prefix = service.toUpperCase().replace(/-/g, '_');
  const port = SERVICE_TCP_PORTS[service];
  if (port === undefined) throw new Error(`No default TCP port for the ${service} service`);
  return { host: env[`${prefix}_HOST`] || 'localhost', port: readPort(`${prefix}_TCP_PORT`, port, env) };
}

/** /health and /metrics on DASHBOARD_PORT, open without a session, as the gateway's are on PORT. */
@PublicOperatorRoute()
@Controller()
class DashboardSystemController extends SystemController {}

/**
 * What the operator app takes from the platform in the distributed runtime (the embedded runtime bridges
 * the same tokens from its container): the stores (INFRASTRUCTURE: the control scope's staff and audit
 * streams on EventStoreDB, read models on MongoDB), CONTROL_PLANE_API and PROGRAM_DIRECTORY from the
 * control store, the public Event log read in process, and every other context's contract tokens as
 * clients of its service, one breaker per service. Runs no consumers.
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
        ...REMOTE_CONTEXTS.map((context) =>
          ContextTransportModule.forClient({
            service: context.name,
            ...serviceAddress(context.name, options.env),
            contracts: context.contracts,
          }),
        ),
        ContextsModule.forRoot({ contexts: LOCAL_CONTEXTS }),
      ],
      controllers: [DashboardSystemController],
    };
  }
}

/**
 * The operator app's root module in the distributed runtime: the platform above, and the backoffice with
 * its staff credentials on MongoDB (`cip_staff_credentials`). The webhook backlog is the webhooks
 * service's, in its memory: this process reports 0 (README).
 */
export function dashboardModule(options: {
  config: PlatformConfig;
  logger: Logger;
  env?: NodeJS.ProcessEnv;
}): DynamicModule {
  const { config, logger, env = process.env } = options;
  const { mongoUrl, personalData } = readDistributedConfig('cip-dashboard', env);
  return OperatorModule.forRoot({
    platform: DashboardPlatformModule.forRoot({
      infrastructure: distributedInfrastructure('cip-dashboard', { logger, runConsumers: false }, env),
      env,
    }),
    backoffice: {
      openCredentials: mongoStaffCredentials({ mongoUrl }),
      masterKey: personalDataMasterKey(personalData.masterKey),
      invitationUrl: (token) => `${dashboardBaseUrl(config)}/invitations/${token}`,
      webhookBacklog: () => 0,
    },
  });
}
