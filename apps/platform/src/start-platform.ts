import type { NestFastifyApplication } from '@nestjs/platform-fastify';
import { DistributorsService, IssuedApiKey } from '@cip/distributors/service';
import { createHttpApp } from '@cip/gateway/http';
import { usePublicAddresses } from '@cip/platform/composition';
import { PLATFORM_CONTEXTS } from '@cip/platform/registry';
import { startSandboxNetwork } from '@cip/simulator/service';
import { ACS_PATH } from '@cip/three-ds/http';
import { SIMULATED_DS_PATH } from '@cip/simulator/http';
import {
  Clock,
  createLogger,
  systemClock,
  listenUrl,
  Logger,
  parseHostPort,
  PlatformConfig,
  PlatformMetrics,
  publicBaseUrl,
} from '@cip/shared/runtime';
import { PlatformModule } from './platform.module';
import { startOperatorApp } from './operator-app';

export interface RunningPlatform {
  app: NestFastifyApplication;
  url: string;
  /** The operator app (the backoffice dashboard and its API) on DASHBOARD_PORT. */
  operatorApp: NestFastifyApplication;
  /** Where the operator app listens. */
  dashboardUrl: string;
  distributorId: string;
  /** The sandbox key created on the very first start (shown once), if any. */
  firstSandboxKey: IssuedApiKey | null;
  /** The card network the issuer links to (ISO 8583 over TCP): CARD_NETWORK_ISO_ADDRESS, or the simulator's. */
  cardNetworkAddress: string;
  /** Where the in-process sandbox card network (the simulator) listens, whichever network the issuer uses. */
  sandboxNetworkAddress: string;
  logger: Logger;
  close(): Promise<void>;
}

/** Starts the embedded platform: opens DATA_DIR, bootstraps the control plane, listens. */
export async function startPlatform(
  config: PlatformConfig,
  overrides: {
    clock?: Clock;
    logger?: Logger;
    pollIntervalMs?: number;
    /**
     * False: the sandbox issuer does not link to the card network (tests where a fake issuer of their own
     * answers the simulator's messages).
     */
    linkIssuer?: boolean;
    /** The dashboard's built files (default: `dist/apps/dashboard-web` of the working directory). */
    dashboardDir?: string;
  } = {},
): Promise<RunningPlatform> {
  const logger = overrides.logger ?? createLogger(config.logLevel);
  // The sandbox card network runs in this process, on loopback; the issuer side is given its address.
  const sandboxNetwork = await startSandboxNetwork({
    config: { ...config.simulator, zpkHex: config.cardNetworkZpk },
    dataDir: config.dataDir,
    clock: overrides.clock ?? systemClock,
    onEvent: (event) => {
      if (event.type === 'connected' || event.type === 'disconnected')
        logger.info(event, 'card network link');
    },
  });
  const app = await createHttpApp(
    PlatformModule.forRoot({
      config,
      logger,
      metrics: new PlatformMetrics(),
      clock: overrides.clock,
      pollIntervalMs: overrides.pollIntervalMs,
      // The issuer links to CARD_NETWORK_ISO_ADDRESS when set, else to the simulator started above.
      cardNetwork:
        overrides.linkIssuer === false
          ? undefined
          : (config.cardNetwork ?? parseHostPort(sandboxNetwork.address)),
      sandboxNetwork,
    }),
    {
      logger,
      rateLimit: config.rateLimit,
      timeouts: config.httpTimeouts,
      publicBaseUrl: config.publicBaseUrl,
      // PORT=0 binds any free port, known only once listening: the document then keeps the generic default.
      localBaseUrl: config.port ? listenUrl(config.host, config.port) : undefined,
    },
  ).catch(async (error: unknown) => {
    await sandboxNetwork.network.close();
    throw error;
  });
  const bootstrap = await app.get(DistributorsService).bootstrap({
    sandboxKey: config.bootstrapSandboxApiKey,
    productionKey: config.bootstrapProductionApiKey,
  });
  await app.listen({ port: config.port, host: config.host });
  const address = app.getHttpServer().address();
  const port = typeof address === 'object' && address ? address.port : config.port;
  // The hosted pages, reveal links and 3DS challenges start with the public URL; the sandbox 3DS server posts
  // AReqs to the ACS (THREE_DS_BASE_URL, else this platform's own) and takes RReqs at its simulated
  // directory server, on this platform's port.
  const localUrl = listenUrl(config.host, port);
  usePublicAddresses(app, PLATFORM_CONTEXTS, {
    publicBaseUrl: publicBaseUrl(config, port),
    acsBaseUrl: config.threeDsBaseUrl ?? `${localUrl}${ACS_PATH}`,
    dsBaseUrl: `${localUrl}${SIMULATED_DS_PATH}`,
  });
  const operator = await startOperatorApp(app, config, logger, {
    dashboardDir: overrides.dashboardDir,
  }).catch(async (error: unknown) => {
    await app.close();
    throw error;
  });
  return {
    app,
    url: localUrl,
    operatorApp: operator.app,
    dashboardUrl: operator.url,
    distributorId: bootstrap.distributor.distributorId,
    firstSandboxKey: bootstrap.firstSandboxKey,
    cardNetworkAddress: config.cardNetwork
      ? `${config.cardNetwork.host}:${config.cardNetwork.port}`
      : sandboxNetwork.address,
    sandboxNetworkAddress: sandboxNetwork.address,
    logger,
    // The operator app first: its subscriptions read the platform's stores.
    close: async () => {
      await operator.app.close();
      await app.close();
    },
  };
}
