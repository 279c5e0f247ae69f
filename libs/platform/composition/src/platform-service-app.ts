import { DistributorsModule } from '@cip/distributors/service';
import {
  PLATFORM_SERVICES,
  platformService,
  PUBLIC_EVENT_MAPPERS,
  serviceAddress,
  serviceEnvPrefix,
} from '@cip/platform/registry';
import { readStoreDriver } from '@cip/shared/infrastructure';
import { createLogger, publicBaseUrl, readPlatformConfig, readSimulatorConfig } from '@cip/shared/runtime';
import type { ContextServiceAppOptions, ServiceClientModuleOptions } from '@cip/shared/transport';
import { ACS_PATH } from '@cip/three-ds/http';
import { SIMULATED_DS_PATH } from '@cip/simulator/http';
import { contextCheckpointedFiles, contextOptionsProviders, ContextOptionsSettings } from './context-options';
import { usePublicAddresses } from './public-addresses';

/** Clients of every service's contracts but `except`'s, at `<SERVICE>_HOST:<SERVICE>_TCP_PORT`. */
export const serviceClients = (
  except: string | null,
  env: NodeJS.ProcessEnv = process.env,
): ServiceClientModuleOptions[] =>
  PLATFORM_SERVICES.filter((service) => service.name !== except).map((service) => ({
    service: service.name,
    ...serviceAddress(service.name, env),
    contracts: service.contexts.flatMap((context) => context.contracts),
  }));

/**
 * Where the services reach the gateway's HTTP (the sandbox 3DS server's AReqs and RReqs): GATEWAY_URL, else
 * the public base URL.
 */
const gatewayUrl = (env: NodeJS.ProcessEnv, publicUrl: string) =>
  (env.GATEWAY_URL || publicUrl).replace(/\/+$/, '');

/**
 * One service of PLATFORM_SERVICES as `runContextService` runs it: its contexts with the options the
 * configuration gives them (the same as the embedded platform's), every other service as clients, the
 * control plane in process, every context's public Event mappers (the webhooks service records and delivers
 * the Events of all), and the public addresses wired before the first command. The simulator service also
 * runs the sandbox card network's ISO 8583 server (SIMULATOR_ISO_PORT, default 8583) and the sandbox 3DS
 * server; the authorizations service's issuer links to CARD_NETWORK_ISO_ADDRESS, by default the simulator's
 * (`SIMULATOR_HOST`:SIMULATOR_ISO_PORT).
 */
export function platformServiceApp(
  name: string,
  env: NodeJS.ProcessEnv = process.env,
): ContextServiceAppOptions {
  const service = platformService(name);
  const platformConfig = readPlatformConfig(env);
  // A service's sandbox network listens for the issuer on every interface, at 8583 unless told otherwise.
  const simulator = readSimulatorConfig(env, { isoPort: 8583, isoHost: '0.0.0.0' });
  const config = { ...platformConfig, simulator };
  const logger = createLogger(config.logLevel, name);
  const settings: ContextOptionsSettings = {
    config,
    logger,
    driver: readStoreDriver(env),
    mongoUrl: env.MONGO_URL,
    vaultDatabaseUrl: env.CARD_VAULT_DATABASE_URL || env.DATABASE_URL,
    cardNetwork: config.cardNetwork ?? { host: env.SIMULATOR_HOST || 'localhost', port: simulator.isoPort },
  };
  const publicUrl = publicBaseUrl(config);
  const gateway = gatewayUrl(env, publicUrl);
  return {
    name,
    tcpPort: { env: `${serviceEnvPrefix(name)}_TCP_PORT`, default: service.tcpPort },
    contexts: service.contexts,
    remotes: serviceClients(name, env),
    imports: [DistributorsModule],
    providers: contextOptionsProviders(service.contexts, settings),
    publicEvents: PUBLIC_EVENT_MAPPERS,
    checkpointedFiles: contextCheckpointedFiles(service.contexts, settings),
    logger,
    beforeListening: (app) =>
      usePublicAddresses(app, service.contexts, {
        publicBaseUrl: publicUrl,
        acsBaseUrl: config.threeDsBaseUrl ?? `${gateway}${ACS_PATH}`,
        dsBaseUrl: `${gateway}${SIMULATED_DS_PATH}`,
      }),
  };
}
