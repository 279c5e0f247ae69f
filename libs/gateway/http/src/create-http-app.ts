import { Type, DynamicModule } from '@nestjs/common';
import { NestFastifyApplication } from '@nestjs/platform-fastify';
import { DistributorDirectory } from '@cip/distributors/service';
import { Infrastructure, INFRASTRUCTURE } from '@cip/shared/infrastructure';
import { CLOCK, Clock, Logger, METRICS, PlatformMetrics } from '@cip/shared/runtime';
import { serveApiDocs } from './docs-page';
import { buildOpenApiDocument } from './openapi/openapi-document';
import { ApiExceptionFilter } from './pipeline/error-responses';
import { createNestFastifyApp } from './nest-fastify-app';
import { installGatewayPipeline } from './pipeline/gateway-pipeline';
import { installRequestBodies } from './pipeline/request-bodies';
import { apiValidationPipe } from './pipeline/validation';

/** Pages served to users (not distributors) by the platform itself, reached by signed links. */
export const HOSTED_PAGES_PATH = '/hosted/';

export interface HttpAppOptions {
  logger: Logger;
  rateLimit: { ratePerSecond: number; burst: number };
  /** Largest accepted request body. */
  bodyLimitBytes?: number;
  /** Headers and whole-request deadlines (PlatformConfig.httpTimeouts); Node's defaults when absent. */
  timeouts?: { headersMs: number; requestMs: number };
  /** Where clients reach the API (PUBLIC_BASE_URL): the `servers` of the OpenAPI document. */
  publicBaseUrl?: string;
  /** Where the app is reached locally (HOST and PORT), when PORT is known before listening. */
  localBaseUrl?: string;
}

/**
 * Builds the HTTP app of the gateway on Fastify: validation, the error shape, the request pipeline
 * (request id, auth, rate limit, idempotency, metrics), OpenAPI at /v1/openapi.json and a docs page at
 * /v1/docs. Used by apps/platform, apps/gateway and the tests, so all of them serve the same API.
 */
export async function createHttpApp(
  rootModule: Type<unknown> | DynamicModule,
  options: HttpAppOptions,
): Promise<NestFastifyApplication> {
  const app = await createNestFastifyApp(rootModule, {
    logger: options.logger,
    bodyLimitBytes: options.bodyLimitBytes ?? 1024 * 1024,
    timeouts: options.timeouts,
  });
  const fastify = app.getHttpAdapter().getInstance();

  installRequestBodies(fastify, HOSTED_PAGES_PATH);

  const directory = app.get(DistributorDirectory, { strict: false });
  installGatewayPipeline(fastify, {
    authenticate: (apiKey) => directory.authenticate(apiKey),
    infrastructure: app.get<Infrastructure>(INFRASTRUCTURE, { strict: false }),
    clock: app.get<Clock>(CLOCK, { strict: false }),
    metrics: app.get<PlatformMetrics>(METRICS, { strict: false }),
    logger: options.logger,
    rateLimit: options.rateLimit,
  });

  app.useGlobalPipes(apiValidationPipe());
  app.useGlobalFilters(new ApiExceptionFilter(options.logger));

  const document = buildOpenApiDocument(app, {
    publicBaseUrl: options.publicBaseUrl,
    localBaseUrl: options.localBaseUrl,
  });
  serveApiDocs(fastify, document);

  app.enableShutdownHooks();
  await app.init();
  return app;
}
