import type { INestApplicationContext } from '@nestjs/common';
import type { NestFastifyApplication } from '@nestjs/platform-fastify';
import {
  createOperatorApp,
  DASHBOARD_DIR,
  OperatorModule,
  TokenBridgeModule,
  type BridgedToken,
} from '@cip/backoffice/http';
import { SqliteStaffCredentialStore, staffCredentialsFile } from '@cip/backoffice/service';
import { CONTROL_PLANE_API, PROGRAM_DIRECTORY } from '@cip/distributors/contract';
import { PUBLIC_EVENT_LOG } from '@cip/events/contract';
import { PLATFORM_CONTEXTS } from '@cip/platform/registry';
import {
  ConsumerHost,
  INFRASTRUCTURE,
  loadPersonalDataMasterKey,
  PROCESS_HEALTH,
} from '@cip/shared/infrastructure';
import {
  CLOCK,
  dashboardBaseUrl,
  listenUrl,
  type Logger,
  METRICS,
  type PlatformConfig,
} from '@cip/shared/runtime';

/**
 * What the operator app takes from the platform's container: every contract token of every registered
 * context, the control plane, the public Event log, and the platform's clock, metrics, consumers and stores.
 */
export const OPERATOR_BRIDGED_TOKENS: BridgedToken[] = [
  ...PLATFORM_CONTEXTS.flatMap((context) => context.contracts.map((contract) => contract.token as symbol)),
  CONTROL_PLANE_API,
  PROGRAM_DIRECTORY,
  PUBLIC_EVENT_LOG,
  CLOCK,
  METRICS,
  INFRASTRUCTURE,
  ConsumerHost,
  PROCESS_HEALTH,
];

export interface RunningOperatorApp {
  app: NestFastifyApplication;
  /** Where the operator app listens (`http://host:port`). */
  url: string;
}

/** The operator app of the embedded runtime on DASHBOARD_PORT, bridged to the platform's container. */
export async function startOperatorApp(
  platform: INestApplicationContext,
  config: PlatformConfig,
  logger: Logger,
  options: { dashboardDir?: string } = {},
): Promise<RunningOperatorApp> {
  let baseUrl = dashboardBaseUrl(config);
  const app = await createOperatorApp(
    OperatorModule.forRoot({
      platform: TokenBridgeModule.from(platform, OPERATOR_BRIDGED_TOKENS),
      backoffice: {
        openCredentials: SqliteStaffCredentialStore.opener(staffCredentialsFile(config.dataDir)),
        masterKey: loadPersonalDataMasterKey(config.dataDir, config.personalDataMasterKey),
        invitationUrl: (token) => `${baseUrl}/invitations/${token}`,
      },
    }),
    { logger, dashboardDir: options.dashboardDir ?? DASHBOARD_DIR, timeouts: config.httpTimeouts },
  );
  await app.listen({ port: config.dashboardPort, host: config.host });
  const address = app.getHttpServer().address();
  const port = typeof address === 'object' && address ? address.port : config.dashboardPort;
  baseUrl = dashboardBaseUrl(config, port);
  return { app, url: listenUrl(config.host, port) };
}
