import { ArgumentsHost, Catch, Controller, Inject, Type, UseFilters } from '@nestjs/common';
import { BaseRpcExceptionFilter, MessagePattern, Payload, RpcException } from '@nestjs/microservices';
import { type Caller, DomainError, IDEMPOTENCY_REFUSALS } from '@cip/shared/contracts';
import { type Infrastructure, INFRASTRUCTURE, LOGGER } from '@cip/shared/infrastructure';
import type { Logger } from '@cip/shared/runtime';
import type { Observable } from 'rxjs';
import { ContextApi, ContextContract, contractMethods, messagePattern } from '@cip/shared/contracts';
import { toWireError, WireError } from './wire-errors';

/**
 * Sends a DomainError back with its code, message and details, so that the gateway answers exactly as the
 * embedded runtime does. Anything else is a fault of this service: logged here, `internal_error` on the wire.
 */
@Catch()
export class DomainRpcExceptionFilter extends BaseRpcExceptionFilter<unknown, WireError> {
  constructor(@Inject(LOGGER) private readonly logger: Logger) {
    super();
  }

  override catch(exception: unknown, host: ArgumentsHost): Observable<WireError> {
    if (exception instanceof DomainError) return super.catch(new RpcException(toWireError(exception)), host);
    const pattern = host.switchToRpc().getContext<{ getPattern?: () => string }>()?.getPattern?.();
    this.logger.error({ err: exception, pattern }, 'command failed');
    const error: WireError = { code: 'internal_error', message: 'The service failed to handle the request' };
    return super.catch(new RpcException(error), host);
  }
}

type Handler = (message: Record<string, unknown>) => Promise<unknown>;

/**
 * A keyed request's command, sent by the gateway holding its claim: its run is recorded with the events this
 * process appends for it, in the store the gateway reads, and a second run of the claim is refused here
 * (`IdempotencyStore.hostRun`; docs/API-DECISIONS.md, idempotency). Throws the refusal as the gateway answers it.
 */
function hostIdempotentRun(infrastructure: Infrastructure, caller: Caller | undefined) {
  const run = caller?.idempotency;
  if (!run) return undefined;
  const hosted = infrastructure.scope(caller.environment).idempotency.hostRun?.(run, caller.requestId);
  if (hosted && 'refused' in hosted) {
    const code =
      hosted.refused === 'in_flight' ? 'idempotency_request_in_progress' : 'idempotency_outcome_lost';
    // Still running: this run did not run, its gateway gives its claim up. Ran: the answer of this request.
    throw new DomainError(
      code,
      IDEMPOTENCY_REFUSALS[code],
      undefined,
      hosted.refused === 'in_flight' ? 'not_run' : undefined,
    );
  }
  return hosted;
}

/**
 * The message handlers of one context API: one pattern per method of its contract, each calling the API
 * provided under the contract's token with the payload's named fields as arguments. Callers are trusted: the
 * gateway has authenticated the API key and resolved the caller's tenant and program, and these ports are
 * only reachable inside the cluster.
 */
export function contextMessageController<Api extends ContextApi<Api>>(contract: ContextContract<Api>): Type {
  class ContextMessageController {
    constructor(
      readonly api: Api,
      readonly infrastructure: Infrastructure,
    ) {}
  }
  Inject(contract.token)(ContextMessageController, undefined, 0);
  Inject(INFRASTRUCTURE)(ContextMessageController, undefined, 1);
  for (const method of contractMethods(contract)) {
    const names = contract.methods[method] as readonly string[];
    const handler: Handler = async function (this: ContextMessageController, message) {
      const call = this.api[method] as unknown as (...args: unknown[]) => Promise<unknown>;
      const hosted = hostIdempotentRun(this.infrastructure, message.caller as Caller | undefined);
      let answer: unknown;
      try {
        answer = await call.apply(
          this.api,
          names.map((name) => message[name]),
        );
      } catch (error) {
        // A call of this command to another service that may not have run, or may still run: this command
        // may have appended before it, so its fate is not known either (never `not_run`).
        if (error instanceof DomainError && error.fate) {
          throw new DomainError(error.code, error.message, error.details, 'unknown');
        }
        throw error;
      } finally {
        hosted?.done();
      }
      // A method that answers nothing (Promise<void>) still sends a reply: without a value the client's
      // stream completes empty, and the call would fail as if the service had.
      return answer === undefined ? null : answer;
    };
    Object.defineProperty(ContextMessageController.prototype, method, {
      value: handler,
      writable: true,
      configurable: true,
    });
    const descriptor = Object.getOwnPropertyDescriptor(ContextMessageController.prototype, method);
    MessagePattern(messagePattern(contract, method))(
      ContextMessageController.prototype,
      method,
      descriptor as PropertyDescriptor,
    );
    Payload()(ContextMessageController.prototype, method, 0);
  }
  UseFilters(DomainRpcExceptionFilter)(ContextMessageController);
  Controller()(ContextMessageController);
  const className = `${contract.name.replace(/(^|[-.])(\w)/g, (_, _sep, c: string) => c.toUpperCase())}MessageController`;
  Object.defineProperty(ContextMessageController, 'name', { value: className });
  return ContextMessageController;
}
