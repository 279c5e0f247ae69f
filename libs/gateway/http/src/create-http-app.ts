import { LoggerService, Type, DynamicModule } from '@nestjs/common';
import { NestFactory } from '@nestjs/core';
import { FastifyAdapter, NestFastifyApplication } from '@nestjs/platform-fastify';
import { DistributorDirectory } from '@cip/distributors/service';
import { Infrastructure, INFRASTRUCTURE } from '@cip/shared/infrastructure';
import { CLOCK, Clock, Logger, METRICS, PlatformMetrics } from '@cip/shared/runtime';
import { randomUUID } from 'node:crypto';
import { createServer, RequestListener } from 'node:http';
import { serveApiDocs } from './docs-page';
import { buildOpenApiDocument } from './openapi/openapi-document';
import { ApiExceptionFilter } from './pipeline/error-responses';
import { installGatewayPipeline, requestIdOf } from './pipeline/gateway-pipeline';
import { installRequestBodies } from './pipeline/request-bodies';
import { answerClientError, answerRouterError } from './pipeline/transport-errors';
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

/** Nest's own messages (bootstrap, errors) go to the same structured log. */
class PinoNestLogger implements LoggerService {
  constructor(private readonly logger: Logger) {}
  log(message: unknown, context?: string) {
    this.logger.debug({ context }, String(message));
  }
  error(message: unknown, trace?: string, context?: string) {
    this.logger.error({ context, trace }, String(message));
  }
  warn(message: unknown, context?: string) {
    this.logger.warn({ context }, String(message));
  }
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
  const timeouts = options.timeouts;
  const adapter = new FastifyAdapter({
    logger: false,
    bodyLimit: options.bodyLimitBytes ?? 1024 * 1024,
    genReqId: (request: { headers: Record<string, string | string[] | undefined> }) =>
      requestIdOf(request.headers['x-request-id'], () => `req_${randomUUID()}`),
    routerOptions: { ignoreTrailingSlash: true },
    clientErrorHandler: answerClientError,
    frameworkErrors: answerRouterError,
    // Slow or incomplete requests are cut off (408) so idle connections cannot pile up. Node checks the
    // deadlines of open connections every `connectionsCheckingInterval`, so that runs well under them.
    ...(timeouts && {
      serverFactory: (handler: RequestListener) =>
        createServer(
          {
            headersTimeout: timeouts.headersMs,
            requestTimeout: timeouts.requestMs,
            connectionsCheckingInterval: Math.max(10, Math.min(1_000, timeouts.headersMs / 4)),
          },
          handler,
        ),
    }),
  });
  const app = await NestFactory.create<NestFastifyApplication>(rootModule as Type<unknown>, adapter, {
    logger: new PinoNestLogger(options.logger),
    abortOnError: false,
    bodyParser: false,
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
