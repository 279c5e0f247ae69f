import { LoggerService, Type, DynamicModule } from '@nestjs/common';
import { NestFactory } from '@nestjs/core';
import { FastifyAdapter, NestFastifyApplication } from '@nestjs/platform-fastify';
import type { Logger } from '@cip/shared/runtime';
import { randomUUID } from 'node:crypto';
import { createServer, RequestListener } from 'node:http';
import { requestIdOf } from './pipeline/gateway-pipeline';
import { answerClientError, answerRouterError } from './pipeline/transport-errors';
import { installUnreadBodyDrain } from './pipeline/unread-bodies';

export interface NestFastifyAppOptions {
  logger: Logger;
  /** Largest accepted request body. */
  bodyLimitBytes: number;
  /** Headers and whole-request deadlines (PlatformConfig.httpTimeouts); Node's defaults when absent. */
  timeouts?: { headersMs: number; requestMs: number };
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
 * A Nest application on its own Fastify instance, set up as every HTTP app of the platform is (the /v1 API
 * and the operator app): request ids from `x-request-id` or generated, trailing slashes ignored, refusals
 * before routing in the error shape, answers sent after the rest of an unread body (`installUnreadBodyDrain`),
 * Nest's logs in the structured log, no body parser (the caller installs `installRequestBodies`). Not yet
 * initialised: the caller adds its hooks, pipes and filters, then `init()`s.
 */
export async function createNestFastifyApp(
  rootModule: Type<unknown> | DynamicModule,
  options: NestFastifyAppOptions,
): Promise<NestFastifyApplication> {
  const timeouts = options.timeouts;
  const adapter = new FastifyAdapter({
    logger: false,
    bodyLimit: options.bodyLimitBytes,
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
  installUnreadBodyDrain(adapter.getInstance());
  return NestFactory.create<NestFastifyApplication>(rootModule as Type<unknown>, adapter, {
    logger: new PinoNestLogger(options.logger),
    abortOnError: false,
    bodyParser: false,
  });
}
