import {
  ArgumentsHost,
  Catch,
  Controller,
  DynamicModule,
  Inject,
  Module,
  OnApplicationShutdown,
  UseFilters,
} from '@nestjs/common';
import {
  BaseRpcExceptionFilter,
  ClientProxy,
  ClientsModule,
  MessagePattern,
  Payload,
  RpcException,
  Transport,
} from '@nestjs/microservices';
import { API_ERROR_STATUS, ApiErrorCode, ApiFieldError, DomainError } from '@cip/shared/contracts';
import { LOGGER } from '@cip/shared/infrastructure';
import type { FindQuery, FindResult } from '@cip/shared/read-store';
import type { Logger } from '@cip/shared/runtime';
import type { Phone, ShippingAddress, TargetStatus } from '@cip/users/domain';
import type { UserView } from '@cip/users/read-models';
import CircuitBreaker from 'opossum';
import { lastValueFrom, Observable, timeout } from 'rxjs';
import { CreateUserInput, USERS_API, UserListFilter, UsersApi, UsersCaller } from '../users.api';
import { UsersModule } from '../users.module';
import { UsersService } from '../users.service';

// ---------------------------------------------------------------------------------------------------------
// Wire contract: one message pattern per UsersApi method, named payloads, and the error shape.
// ---------------------------------------------------------------------------------------------------------

/** Message patterns of the users service, one per {@link UsersApi} method. */
export const USERS_PATTERNS = {
  createUser: { cmd: 'users.createUser' },
  getUser: { cmd: 'users.getUser' },
  listUsers: { cmd: 'users.listUsers' },
  setPhone: { cmd: 'users.setPhone' },
  updateShippingAddress: { cmd: 'users.updateShippingAddress' },
  changeStatus: { cmd: 'users.changeStatus' },
} as const satisfies Record<keyof UsersApi, { cmd: string }>;

/**
 * Payload of each pattern. Named fields rather than argument lists: JSON turns an `undefined` argument into
 * `null`, and names let either side add an optional field without breaking the other during a rollout.
 */
export interface UsersMessages extends Record<keyof UsersApi, { caller: UsersCaller }> {
  createUser: { caller: UsersCaller; input: CreateUserInput };
  getUser: { caller: UsersCaller; userId: string };
  listUsers: { caller: UsersCaller; filter: UserListFilter; page: Omit<FindQuery, 'filter'> };
  setPhone: { caller: UsersCaller; userId: string; phone: Phone };
  updateShippingAddress: { caller: UsersCaller; userId: string; address: ShippingAddress };
  changeStatus: { caller: UsersCaller; userId: string; to: TargetStatus; reason?: string; cause?: string };
}

/** What a failed command sends back: the payload of the RpcException. */
export interface UsersWireError {
  code: ApiErrorCode;
  message: string;
  details?: ApiFieldError[];
}

function isWireError(error: unknown): error is UsersWireError {
  if (typeof error !== 'object' || error === null || error instanceof Error) return false;
  const { code, message } = error as Record<string, unknown>;
  return typeof code === 'string' && Object.hasOwn(API_ERROR_STATUS, code) && typeof message === 'string';
}

// ---------------------------------------------------------------------------------------------------------
// Service side: the users context behind TCP message handlers.
// ---------------------------------------------------------------------------------------------------------

/**
 * Sends a DomainError back with its code, message and details, so that the gateway answers exactly as the
 * embedded runtime does. Anything else is a fault of this service: logged here, `internal_error` on the wire.
 */
@Catch()
export class UsersRpcExceptionFilter extends BaseRpcExceptionFilter<unknown, UsersWireError> {
  constructor(@Inject(LOGGER) private readonly logger: Logger) {
    super();
  }

  override catch(exception: unknown, host: ArgumentsHost): Observable<UsersWireError> {
    if (exception instanceof DomainError) {
      const error: UsersWireError = {
        code: exception.code,
        message: exception.message,
        details: exception.details,
      };
      return super.catch(new RpcException(error), host);
    }
    this.logger.error({ err: exception }, 'users command failed');
    const error: UsersWireError = {
      code: 'internal_error',
      message: 'The users service failed to handle the request',
    };
    return super.catch(new RpcException(error), host);
  }
}

/**
 * The users service's TCP handlers. Callers are trusted: the gateway has already authenticated the API key
 * and resolved the caller's tenant and program, and this port is only reachable inside the cluster.
 */
@Controller()
@UseFilters(UsersRpcExceptionFilter)
export class UsersMessageController {
  constructor(@Inject(UsersService) private readonly users: UsersService) {}

  @MessagePattern(USERS_PATTERNS.createUser)
  createUser(@Payload() message: UsersMessages['createUser']): Promise<UserView> {
    return this.users.createUser(message.caller, message.input);
  }

  @MessagePattern(USERS_PATTERNS.getUser)
  getUser(@Payload() message: UsersMessages['getUser']): Promise<UserView> {
    return this.users.getUser(message.caller, message.userId);
  }

  @MessagePattern(USERS_PATTERNS.listUsers)
  listUsers(@Payload() message: UsersMessages['listUsers']): Promise<FindResult<UserView>> {
    return this.users.listUsers(message.caller, message.filter, message.page);
  }

  @MessagePattern(USERS_PATTERNS.setPhone)
  setPhone(@Payload() message: UsersMessages['setPhone']): Promise<UserView> {
    return this.users.setPhone(message.caller, message.userId, message.phone);
  }

  @MessagePattern(USERS_PATTERNS.updateShippingAddress)
  updateShippingAddress(@Payload() message: UsersMessages['updateShippingAddress']): Promise<UserView> {
    return this.users.updateShippingAddress(message.caller, message.userId, message.address);
  }

  @MessagePattern(USERS_PATTERNS.changeStatus)
  changeStatus(@Payload() message: UsersMessages['changeStatus']): Promise<UserView> {
    return this.users.changeStatus(message.caller, message.userId, message.to, message.reason, message.cause);
  }
}

// ---------------------------------------------------------------------------------------------------------
// Gateway side: UsersApi over TCP, behind one circuit breaker.
// ---------------------------------------------------------------------------------------------------------

export interface UsersClientOptions {
  host: string;
  port: number;
  /** How long a command may take before it fails and counts against the breaker (default 5 s). */
  timeoutMs?: number;
  /** How long the open breaker fails fast before it lets one trial command through (default 10 s). */
  resetTimeoutMs?: number;
}

/** Errors that say the service is unwell, as opposed to a rule violation it correctly reported. */
const SERVICE_FAULTS: ReadonlySet<ApiErrorCode> = new Set(['internal_error', 'service_unavailable']);

type UsersPattern = (typeof USERS_PATTERNS)[keyof UsersApi];

/**
 * {@link UsersApi} as a client of the users service. Rule violations come back as the DomainError the
 * service raised (same code, so the same HTTP answer as in the embedded runtime) and leave the breaker
 * alone; timeouts, refused or dropped connections and service faults trip it. While it is open, and
 * whenever the service cannot be reached, calls fail at once with `service_unavailable` (503).
 */
export class UsersTcpClient implements UsersApi, OnApplicationShutdown {
  private readonly breaker: CircuitBreaker<[UsersPattern, unknown], unknown>;

  constructor(
    private readonly client: ClientProxy,
    private readonly logger: Logger,
    options: Pick<UsersClientOptions, 'timeoutMs' | 'resetTimeoutMs'> = {},
  ) {
    const timeoutMs = options.timeoutMs ?? 5_000;
    this.breaker = new CircuitBreaker(
      // The breaker's timeout fails the call; the same deadline on the observable also unsubscribes, so a
      // reply that never comes does not stay registered on the connection.
      (pattern: UsersPattern, message: unknown) =>
        lastValueFrom(this.client.send(pattern, message).pipe(timeout(timeoutMs))).catch((error: unknown) => {
          throw isWireError(error) ? new DomainError(error.code, error.message, error.details) : error;
        }),
      {
        name: 'users-service',
        timeout: timeoutMs,
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

  createUser(caller: UsersCaller, input: CreateUserInput): Promise<UserView> {
    return this.send('createUser', { caller: wireCaller(caller), input });
  }

  getUser(caller: UsersCaller, userId: string): Promise<UserView> {
    return this.send('getUser', { caller: wireCaller(caller), userId });
  }

  listUsers(
    caller: UsersCaller,
    filter: UserListFilter,
    page: Omit<FindQuery, 'filter'>,
  ): Promise<FindResult<UserView>> {
    return this.send('listUsers', { caller: wireCaller(caller), filter, page });
  }

  setPhone(caller: UsersCaller, userId: string, phone: Phone): Promise<UserView> {
    return this.send('setPhone', { caller: wireCaller(caller), userId, phone });
  }

  updateShippingAddress(caller: UsersCaller, userId: string, address: ShippingAddress): Promise<UserView> {
    return this.send('updateShippingAddress', { caller: wireCaller(caller), userId, address });
  }

  changeStatus(
    caller: UsersCaller,
    userId: string,
    to: TargetStatus,
    reason?: string,
    cause?: string,
  ): Promise<UserView> {
    return this.send('changeStatus', { caller: wireCaller(caller), userId, to, reason, cause });
  }

  onApplicationShutdown(): void {
    this.breaker.shutdown();
  }

  private async send<K extends keyof UsersApi>(
    method: K,
    message: UsersMessages[K],
  ): Promise<Awaited<ReturnType<UsersApi[K]>>> {
    try {
      return (await this.breaker.fire(USERS_PATTERNS[method], message)) as Awaited<ReturnType<UsersApi[K]>>;
    } catch (error) {
      if (error instanceof DomainError && error.code !== 'service_unavailable') throw error;
      // An open breaker is already logged once, when it opened; each other failure is worth a line.
      if ((error as { code?: string } | null)?.code !== 'EOPENBREAKER') {
        this.logger.warn({ err: error, breaker: this.breaker.name, method }, 'users service call failed');
      }
      throw new DomainError('service_unavailable', 'The users service is unavailable; retry later');
    }
  }
}

/** Only what the users context needs crosses the wire (the gateway's caller also carries its key id). */
const wireCaller = ({ distributorId, environment, program, requestId }: UsersCaller): UsersCaller => ({
  distributorId,
  environment,
  program,
  requestId,
});

const USERS_SERVICE_CLIENT = Symbol('USERS_SERVICE_CLIENT');

/**
 * The users context over TCP. `forServer` mounts the users module behind the message handlers (the users
 * service app); `forClient` provides USERS_API as a {@link UsersTcpClient} (the gateway app).
 */
@Module({})
export class UsersTransportModule {
  static forServer(): DynamicModule {
    return {
      module: UsersTransportModule,
      imports: [UsersModule],
      controllers: [UsersMessageController],
    };
  }

  static forClient(options: UsersClientOptions): DynamicModule {
    return {
      module: UsersTransportModule,
      imports: [
        ClientsModule.register([
          {
            name: USERS_SERVICE_CLIENT,
            transport: Transport.TCP,
            options: { host: options.host, port: options.port },
          },
        ]),
      ],
      providers: [
        {
          provide: USERS_API,
          inject: [USERS_SERVICE_CLIENT, LOGGER],
          useFactory: (client: ClientProxy, logger: Logger) => new UsersTcpClient(client, logger, options),
        },
      ],
      exports: [USERS_API],
    };
  }
}
