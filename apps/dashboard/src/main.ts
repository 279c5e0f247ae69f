import 'reflect-metadata';
import { createOperatorApp, DASHBOARD_DIR } from '@cip/backoffice/http';
import { createLogger, readPlatformConfig, runMain } from '@cip/shared/runtime';
import { dashboardModule } from './dashboard.module';

/**
 * The backoffice dashboard and its operator API (DASHBOARD_PORT, default 3001) in the distributed runtime:
 * staff and audit streams on EVENTSTORE_URL, read models and staff credentials on MONGO_URL, the context
 * services at <SERVICE>_HOST:<SERVICE>_TCP_PORT (README.md), /health and /metrics beside the dashboard.
 */
runMain('Dashboard', async () => {
  const config = readPlatformConfig();
  const logger = createLogger(config.logLevel, 'dashboard');
  const app = await createOperatorApp(dashboardModule({ config, logger }), {
    logger,
    dashboardDir: DASHBOARD_DIR,
    timeouts: config.httpTimeouts,
  });
  // createOperatorApp enabled Nest's shutdown hooks: SIGTERM stops the listener, then closes the stores.
  await app.listen({ port: config.dashboardPort, host: config.host });
  logger.info({ port: config.dashboardPort }, 'dashboard listening');
});
