import { DomainError, wireCaller, type Caller, type CommandFate } from '@cip/shared/contracts';
import type { Logger } from '@cip/shared/runtime';
import CircuitBreaker from 'opossum';
import { ContextApi, ContextContract, contractMethods, messagePattern } from '@cip/shared/contracts';
import {
  CommandNotSent,
  type ServiceConnectionOptions,
  type ServiceConnections,
} from './service-connections';
import { fromWireError, isWireError, SERVICE_FAULTS } from './wire-errors';

export interface ServiceClientOptions extends ServiceConnectionOptions {
  /** How long a command may take before it fails and counts against the breaker (default 5 s). */
  timeoutMs?: number;
  /** How long the open breaker fails fast before it lets one trial command through (default 10 s). */
  resetTimeoutMs?: number;
}

/**
 * One service as its clients see it: a few connections spread over its replicas (ServiceConnections) and
 * one `opossum` breaker for them all. Rule violations come back as
 * the DomainError the service raised (same code, so the same HTTP answer as in the embedded runtime) and
 * leave the breaker alone; timeouts, refused or dropped connections and service faults trip it. While it is
 * open, and whenever the service cannot be reached, calls fail at once with `service_unavailable` (503).
 * That 503 says whether the command may have run (`DomainError.fate`): `not_run` when it was never sent,
 * `unknown` once it was (a timeout, a dropped connection); a keyed request's gateway stores neither.
 */
export class ServiceClient {
  private readonly breaker: CircuitBreaker<[{ cmd: string }, unknown], unknown>;

  constructor(
    readonly service: string,
    private readonly connections: ServiceConnections,
    private readonly logger: Logger,
    options: ServiceClientOptions = {},
  ) {
    const timeoutMs = options.timeoutMs ?? 5_000;
    this.breaker = new CircuitBreaker(
      // The deadline is the connection's (its TimeoutError trips the breaker like any fault): it also
      // unsubscribes, so a reply that never comes does not stay registered, and the connection is left
      // before the caller sends again.
      (pattern: { cmd: string }, message: unknown) =>
        this.connections.send(pattern, message, timeoutMs).catch((error: unknown) => {
          throw isWireError(error) ? fromWireError(error) : error;
        }),
      {
        name: `${service}-service`,
        timeout: false,
        errorThresholdPercentage: 50,
        // Without a floor, one failed call after a quiet spell is 100 % of the window and opens the breaker.
        volumeThreshold: 5,
        resetTimeout: options.resetTimeoutMs ?? 10_000,
        errorFilter: (error: unknown) => error instanceof DomainError && !SERVICE_FAULTS.has(error.code),
      },
    );
    this.breaker.on('open', () =>
      this.logger.warn({ breaker: this.breaker.name }, 'circuit opened: failing fast'),
    );
    this.breaker.on('halfOpen', () =>
      this.logger.info({ breaker: this.breaker.name }, 'circuit half-open: trying'),
    );
    this.breaker.on('close', () => this.logger.info({ breaker: this.breaker.name }, 'circuit closed'));
  }

  async send(pattern: { cmd: string }, message: Record<string, unknown>): Promise<unknown> {
    try {
      return await this.breaker.fire(pattern, message);
    } catch (error) {
      if (error instanceof DomainError && error.code !== 'service_unavailable') throw error;
      // An open breaker is already logged once, when it opened; each other failure is worth a line.
      if ((error as { code?: string } | null)?.code !== 'EOPENBREAKER') {
        this.logger.warn(
          { err: error, breaker: this.breaker.name, pattern: pattern.cmd },
          'service call failed',
        );
      }
      throw new DomainError(
        'service_unavailable',
        `The ${this.service} service is unavailable; retry later`,
        undefined,
        fateOf(error),
      );
    }
  }

  /** The breaker's state: `open` while calls fail fast (readiness reports it). */
  get breakerState(): 'closed' | 'open' | 'halfOpen' {
    if (this.breaker.opened) return 'open';
    return this.breaker.halfOpen ? 'halfOpen' : 'closed';
  }

  shutdown(): void {
    this.breaker.shutdown();
    this.connections.close();
  }
}

/** Opossum's refusals to call at all: open, at its concurrency limit, shut down. */
const BREAKER_REFUSALS = new Set(['EOPENBREAKER', 'ESEMLOCKED', 'ESHUTDOWN']);

/**
 * What a failed call says about its command: what the service answered (its 503 is its answer, unless it
 * relays the fate of a call of its own); never run when it was not sent; otherwise it may have run.
 */
function fateOf(error: unknown): CommandFate | undefined {
  if (error instanceof DomainError) return error.fate;
  if (error instanceof CommandNotSent) return 'not_run';
  const code = (error as { code?: unknown } | null)?.code;
  return typeof code === 'string' && BREAKER_REFUSALS.has(code) ? 'not_run' : 'unknown';
}

/**
 * A context API as a client of the service hosting it: each method sends its arguments under their names
 * (a `caller` argument is reduced to what crosses the wire) and returns the service's answer.
 */
export function contextClient<Api extends ContextApi<Api>>(
  contract: ContextContract<Api>,
  service: ServiceClient,
): Api {
  const api: Record<string, (...args: unknown[]) => Promise<unknown>> = {};
  for (const method of contractMethods(contract)) {
    const names = contract.methods[method] as readonly string[];
    const pattern = messagePattern(contract, method);
    api[method] = (...args: unknown[]) => {
      const message: Record<string, unknown> = {};
      names.forEach((name, i) => {
        if (args[i] !== undefined)
          message[name] = name === 'caller' ? wireCaller(args[i] as Caller) : args[i];
      });
      return service.send(pattern, message);
    };
  }
  return api as unknown as Api;
}
