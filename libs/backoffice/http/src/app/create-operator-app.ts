import { Type, DynamicModule } from '@nestjs/common';
import { NestFastifyApplication } from '@nestjs/platform-fastify';
import fastifyCookie from '@fastify/cookie';
import {
  apiValidationPipe,
  createNestFastifyApp,
  installAccessLog,
  installRequestBodies,
  installRequestId,
} from '@cip/gateway/http';
import { METRICS, type Logger, type PlatformMetrics } from '@cip/shared/runtime';
import { join } from 'node:path';
import { OperatorExceptionFilter } from './operator-exception.filter';
import { buildOperatorOpenApiDocument } from './operator-openapi';
import { serveOperatorDocs } from './operator-docs';
import { installSecurityHeaders, serveDashboard } from './operator-pages';

/** Where the dashboard's build lands (apps/dashboard-web, `npm run build`), from the repository root. */
export const DASHBOARD_DIR = join(process.cwd(), 'dist', 'apps', 'dashboard-web');

export interface OperatorAppOptions {
  logger: Logger;
  /** The dashboard's built files (`dist/apps/dashboard-web`). */
  dashboardDir: string;
  /** Largest accepted request body (64 KiB: the operator API takes small forms). */
  bodyLimitBytes?: number;
  /** Headers and whole-request deadlines (PlatformConfig.httpTimeouts), as on /v1; Node's defaults when absent. */
  timeouts?: { headersMs: number; requestMs: number };
}

/**
 * The operator app (DASHBOARD_PORT): a Nest application of its own on its own Fastify instance, serving the
 * operator API (`/operator/v1`, its OpenAPI document and docs page) and the dashboard's files. It shares the
 * `/v1` pipeline's pieces: request ids, the access log, body reading, the error shape and validation.
 */
export async function createOperatorApp(
  rootModule: Type<unknown> | DynamicModule,
  options: OperatorAppOptions,
): Promise<NestFastifyApplication> {
  // Slow or incomplete requests are cut off (408), as on /v1 (createHttpApp).
  const app = await createNestFastifyApp(rootModule, {
    logger: options.logger,
    bodyLimitBytes: options.bodyLimitBytes ?? 64 * 1024,
    timeouts: options.timeouts,
  });
  const fastify = app.getHttpAdapter().getInstance();
  await fastify.register(fastifyCookie);
  // No hosted form pages here: every body is JSON.
  installRequestBodies(fastify, '/operator/no-form-pages/');
  installRequestId(fastify);
  installSecurityHeaders(fastify);
  installAccessLog(fastify, {
    metrics: app.get<PlatformMetrics>(METRICS, { strict: false }),
    logger: options.logger,
  });
  app.useGlobalPipes(apiValidationPipe());
  app.useGlobalFilters(new OperatorExceptionFilter(options.logger));
  serveOperatorDocs(fastify, buildOperatorOpenApiDocument(app));
  serveDashboard(fastify, options.dashboardDir);
  app.enableShutdownHooks();
  await app.init();
  return app;
}
