import type { Principal } from '@cip/distributors/service';
import type { CommandFate, IdempotentRun } from '@cip/shared/contracts';
import type { Infrastructure } from '@cip/shared/infrastructure';
import type { Clock, Logger, PlatformMetrics } from '@cip/shared/runtime';
import type { FastifyInstance } from 'fastify';
import { installAccessLog } from './access-log.hook';
import { installAuthentication } from './authentication.hook';
import { installIdempotency } from './idempotency.hook';
import { installRateLimit } from './rate-limit.hook';
import { installRequestId } from './request-id.hook';

export { IDEMPOTENCY_RETENTION_MS } from './idempotency.hook';
export { requestIdOf } from './request-id.hook';

declare module 'fastify' {
  interface FastifyRequest {
    /** The authenticated caller of a /v1 request. */
    principal?: Principal;
    /** Identity of an idempotent request that claimed its key and must store its outcome. */
    idempotencyIdentity?: string;
    /** Its run, which the Caller hands to the process that runs its command (`CurrentCaller`). */
    idempotentRun?: IdempotentRun;
    /** Set by the error answer when it is not the command's (`DomainError.fate`): not stored as an outcome. */
    commandFate?: CommandFate;
    startedAt?: bigint;
  }
}

export interface GatewayPipelineOptions {
  authenticate(apiKey: string): Promise<Principal | null>;
  infrastructure: Infrastructure;
  clock: Clock;
  metrics: PlatformMetrics;
  logger: Logger;
  rateLimit: { ratePerSecond: number; burst: number };
}

/**
 * The request pipeline of /v1, as Fastify hooks so that it also covers requests that never reach a
 * controller. The order matters: the request id first (every answer carries it, refusals included), then
 * authentication (the rate limit is per key), the rate limit, idempotency once the body is parsed (its
 * identity includes the body), and the access log when the response has gone.
 */
export function installGatewayPipeline(fastify: FastifyInstance, options: GatewayPipelineOptions): void {
  installRequestId(fastify);
  installAuthentication(fastify, options);
  installRateLimit(fastify, { ...options.rateLimit, clock: options.clock });
  installIdempotency(fastify, options);
  installAccessLog(fastify, options);
}
