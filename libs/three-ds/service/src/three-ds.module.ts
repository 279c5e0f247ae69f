import { Inject, Module, type BeforeApplicationShutdown, type OnApplicationBootstrap } from '@nestjs/common';
import { CARD_NETWORK_API, type CardNetworkApi } from '@cip/cards/contract';
import { PROGRAM_DIRECTORY, type ProgramDirectory } from '@cip/distributors/contract';
import {
  ConsumerHost,
  contractProviders,
  environmentStores,
  Infrastructure,
  INFRASTRUCTURE,
  LOGGER,
} from '@cip/shared/infrastructure';
import type { Environment } from '@cip/shared/contracts';
import {
  CLOCK,
  loadOrCreateSecret,
  METRICS,
  type Clock,
  type Logger,
  type PlatformMetrics,
} from '@cip/shared/runtime';
import { acsContract, threeDsContract, threeDsVerificationContract, type RReq } from '@cip/three-ds/contract';
import { randomBytes } from 'node:crypto';
import {
  cardAuthenticationDeadlinesProjection,
  cardAuthenticationsProjection,
} from '@cip/three-ds/read-models';
import { WALLETS_API, type WalletsApi } from '@cip/wallets/contract';
import { CardAuthenticationExpiryScheduler } from './card-authentication-expiry.scheduler';
import { DirectoryServerClient } from './directory-server-client';
import { ThreeDsService } from './three-ds.service';

/** What the app may decide for the 3DS context (optional, under THREE_DS_OPTIONS). */
export interface ThreeDsModuleOptions {
  /** How RReqs reach the directory server; HTTP POST to the AReq's `dsURL` by default. */
  sendResult?(environment: Environment, dsURL: string, rreq: RReq): Promise<unknown>;
  /**
   * The key of the authentication values (CAVV) of an environment, 32 bytes: the embedded runtime keeps one
   * per environment under DATA_DIR/secrets (`three-ds-authentication-value-key-<env>`). Absent (a test
   * module), each process draws its own, so values issued before a restart no longer verify.
   */
  authenticationValueKey?(environment: Environment): Buffer;
}

export const THREE_DS_OPTIONS = Symbol('THREE_DS_OPTIONS');

/**
 * The 3DS context's APIs, by audience: distributors (`/v1/3ds`), the directory server (the ACS) and the
 * issuer's authorizations (the authentication value check).
 */
export const THREE_DS_CONTRACTS = [threeDsContract, acsContract, threeDsVerificationContract];

/** One key per environment drawn at start, for runtimes that keep none (see `authenticationValueKey`). */
function processKeys(): (environment: Environment) => Buffer {
  const keys = new Map<Environment, Buffer>();
  return (environment) => {
    let key = keys.get(environment);
    if (!key) keys.set(environment, (key = randomBytes(32)));
    return key;
  };
}

const PROJECTION_GROUPS = [cardAuthenticationsProjection, cardAuthenticationDeadlinesProjection].map(
  (p) => `projection.${p.name}`,
);

/**
 * The 3-D Secure context: the issuer's access control server. It finds cards through the cards network
 * contract (CARD_NETWORK_API), a wallet's deposit address through WALLETS_API, and programs' deadlines
 * through PROGRAM_DIRECTORY.
 */
@Module({
  providers: [
    {
      provide: DirectoryServerClient,
      useFactory: () => new DirectoryServerClient(),
    },
    {
      provide: ThreeDsService,
      inject: [
        DirectoryServerClient,
        INFRASTRUCTURE,
        CLOCK,
        LOGGER,
        CARD_NETWORK_API,
        WALLETS_API,
        PROGRAM_DIRECTORY,
        ConsumerHost,
        { token: THREE_DS_OPTIONS, optional: true },
      ],
      useFactory: (
        directoryServer: DirectoryServerClient,
        infrastructure: Infrastructure,
        clock: Clock,
        logger: Logger,
        cards: CardNetworkApi,
        wallets: WalletsApi,
        programs: ProgramDirectory,
        consumers: ConsumerHost,
        options: ThreeDsModuleOptions | undefined,
      ) =>
        new ThreeDsService(
          {
            ...environmentStores(infrastructure),
            settle: consumers.settler(PROJECTION_GROUPS),
            cards,
            wallets,
            programs,
            sendResult:
              options?.sendResult ??
              ((environment, dsURL, rreq) => directoryServer.sendResult(environment, dsURL, rreq)),
            logger,
            authenticationValueKey: options?.authenticationValueKey ?? processKeys(),
          },
          clock,
        ),
    },
    ...contractProviders(ThreeDsService, THREE_DS_CONTRACTS),
    {
      provide: CardAuthenticationExpiryScheduler,
      inject: [ThreeDsService, INFRASTRUCTURE, ConsumerHost, CLOCK, LOGGER, METRICS],
      useFactory: (
        threeDs: ThreeDsService,
        infrastructure: Infrastructure,
        consumers: ConsumerHost,
        clock: Clock,
        logger: Logger,
        metrics: PlatformMetrics,
      ) =>
        new CardAuthenticationExpiryScheduler(
          threeDs,
          {
            readStore: environmentStores(infrastructure).readStore,
            settle: consumers.settler(PROJECTION_GROUPS),
          },
          clock,
          logger,
          metrics,
        ),
    },
  ],
  exports: [
    ThreeDsService,
    CardAuthenticationExpiryScheduler,
    ...THREE_DS_CONTRACTS.map((contract) => contract.token),
  ],
})
export class ThreeDsModule implements OnApplicationBootstrap, BeforeApplicationShutdown {
  constructor(
    @Inject(CardAuthenticationExpiryScheduler) private readonly expiry: CardAuthenticationExpiryScheduler,
    @Inject(DirectoryServerClient) private readonly directoryServer: DirectoryServerClient,
  ) {}

  onApplicationBootstrap(): void {
    this.expiry.start();
  }

  async beforeApplicationShutdown(): Promise<void> {
    await this.expiry.stop();
    this.directoryServer.close();
  }
}

/**
 * The authentication value keys, one per environment: the configured one (THREE_DS_AUTHENTICATION_VALUE_KEY_<ENV>,
 * what replicas of a 3DS service share), else one under DATA_DIR/secrets
 * (`three-ds-authentication-value-key-<env>`, 32 random bytes, base64), generated on first use and kept, so
 * a value issued before a restart verifies after it.
 */
export function embeddedAuthenticationValueKeys(
  dataDir: string,
  configured: Partial<Record<Environment, string>> = {},
): (environment: Environment) => Buffer {
  const keys = new Map<Environment, Buffer>();
  return (environment) => {
    let key = keys.get(environment);
    if (!key) {
      const secret = loadOrCreateSecret({
        dataDir,
        name: `three-ds-authentication-value-key-${environment}`,
        fromEnv: configured[environment],
        generate: () => randomBytes(32).toString('base64'),
      });
      key = Buffer.from(secret, 'base64');
      if (key.length !== 32)
        throw new Error(
          `THREE_DS_AUTHENTICATION_VALUE_KEY_${environment.toUpperCase()} must be 32 bytes (base64)`,
        );
      keys.set(environment, key);
    }
    return key;
  };
}
