import { BeforeApplicationShutdown, Inject, Module, OnApplicationBootstrap } from '@nestjs/common';
import { authorizationsContract } from '@cip/authorizations/contract';
import type { AuthorizationProgram } from '@cip/authorizations/domain';
import { authorizationsProjection } from '@cip/authorizations/read-models';
import { CARD_NETWORK_API, type CardNetworkApi } from '@cip/cards/contract';
import { PROGRAM_DIRECTORY, type ProgramDirectory } from '@cip/distributors/contract';
import type { Environment } from '@cip/shared/contracts';
import {
  ConsumerHost,
  contractProviders,
  environmentStores,
  Infrastructure,
  INFRASTRUCTURE,
  LOGGER,
} from '@cip/shared/infrastructure';
import { CLOCK, Clock, Logger, METRICS, PlatformMetrics } from '@cip/shared/runtime';
import { CLEARING_FILE_SINK } from '@cip/simulator/contract';
import { USER_LIFECYCLE_API, type UserLifecycleApi } from '@cip/users/contract';
import { WALLET_LEDGER, WALLETS_API, type WalletLedger, type WalletsApi } from '@cip/wallets/contract';
import { currentAuthorizationProgram } from './authorization-program.settings';
import { AuthorizationExpiryScheduler } from './authorization-expiry.scheduler';
import { AUTHORIZATION_LEDGER_GROUP } from './authorization-ledger.saga';
import { AuthorizationsService } from './authorizations.service';
import { ClearingExceptions } from './clearing-exceptions';
import { ClearingImport, ClearingImportMetrics } from './clearing-import';
import { IssuerLink, type CardNetworkLinkConfig } from './network/issuer-link';

/** What the app decides for the authorizations context (provided under AUTHORIZATIONS_OPTIONS). */
export interface AuthorizationsModuleOptions {
  /** The card network link (`CARD_NETWORK_ISO_ADDRESS`); none: the platform decides no card payment. */
  network?: CardNetworkLinkConfig;
  /**
   * Overrides a distributor's authorization settings (an embedding's or a test's choice); by default they are
   * the program's, as the distributor CLI sets them (`ProgramRules.authorization`), read at each call.
   */
  program?(environment: Environment, distributorId: string): AuthorizationProgram;
}

export const AUTHORIZATIONS_OPTIONS = Symbol('AUTHORIZATIONS_OPTIONS');

/** The authorizations context's APIs, by audience. */
export const AUTHORIZATIONS_CONTRACTS = [authorizationsContract];

const PROJECTION_GROUPS = [`projection.${authorizationsProjection.name}`];
/** How long a process's first network message waits for the ledger saga to finish what a crash left. */
const LEDGER_RECOVERY_TIMEOUT_MS = 30_000;

/** The issuer's network link, when one is configured (null otherwise). */
export const ISSUER_LINK = Symbol('ISSUER_LINK');

/**
 * The authorizations context: the issuer side of the card network. It reaches cards through their network
 * contract (CARD_NETWORK_API), users (USER_LIFECYCLE_API), wallets (WALLETS_API for a balance, WALLET_LEDGER
 * for the holds) and the distributors' programs. Provides the clearing importer under CLEARING_FILE_SINK.
 */
@Module({
  providers: [
    {
      provide: AuthorizationsService,
      inject: [
        INFRASTRUCTURE,
        ConsumerHost,
        CLOCK,
        AUTHORIZATIONS_OPTIONS,
        CARD_NETWORK_API,
        USER_LIFECYCLE_API,
        WALLETS_API,
        WALLET_LEDGER,
        PROGRAM_DIRECTORY,
        LOGGER,
      ],
      useFactory: (
        infrastructure: Infrastructure,
        consumers: ConsumerHost,
        clock: Clock,
        options: AuthorizationsModuleOptions,
        cards: CardNetworkApi,
        users: UserLifecycleApi,
        wallets: WalletsApi,
        ledger: WalletLedger,
        programs: ProgramDirectory,
        logger: Logger,
      ) =>
        new AuthorizationsService(
          {
            ...environmentStores(infrastructure),
            settle: consumers.settler(PROJECTION_GROUPS),
            ledgerRecovery: async (environment) => {
              if (!consumers.runs(environment, AUTHORIZATION_LEDGER_GROUP)) return false;
              await consumers.drain(environment, [AUTHORIZATION_LEDGER_GROUP], LEDGER_RECOVERY_TIMEOUT_MS);
              return true;
            },
            logger,
            cards,
            users,
            wallets,
            ledger,
            programs,
            authorizationProgram: (environment, distributorId) =>
              options.program?.(environment, distributorId) ??
              currentAuthorizationProgram(programs, distributorId),
          },
          clock,
        ),
    },
    ...contractProviders(AuthorizationsService, AUTHORIZATIONS_CONTRACTS),
    {
      provide: AuthorizationExpiryScheduler,
      inject: [AuthorizationsService, INFRASTRUCTURE, ConsumerHost, CLOCK, LOGGER],
      useFactory: (
        authorizations: AuthorizationsService,
        infrastructure: Infrastructure,
        consumers: ConsumerHost,
        clock: Clock,
        logger: Logger,
      ) =>
        new AuthorizationExpiryScheduler(
          authorizations,
          {
            readStore: environmentStores(infrastructure).readStore,
            settle: consumers.settler(PROJECTION_GROUPS),
          },
          clock,
          logger,
        ),
    },
    {
      // The network's clearing files (the sandbox simulator injects it, optional, from this global module).
      provide: ClearingExceptions,
      inject: [INFRASTRUCTURE, CLOCK],
      useFactory: (infrastructure: Infrastructure, clock: Clock) =>
        new ClearingExceptions(environmentStores(infrastructure), clock),
    },
    {
      provide: CLEARING_FILE_SINK,
      inject: [AuthorizationsService, LOGGER, METRICS, ClearingExceptions],
      useFactory: (
        authorizations: AuthorizationsService,
        logger: Logger,
        metrics: PlatformMetrics,
        exceptions: ClearingExceptions,
      ) =>
        new ClearingImport(authorizations, logger, new ClearingImportMetrics(metrics.registry), exceptions),
    },
    {
      provide: ISSUER_LINK,
      inject: [AUTHORIZATIONS_OPTIONS, AuthorizationsService, LOGGER],
      useFactory: (
        options: AuthorizationsModuleOptions,
        authorizations: AuthorizationsService,
        logger: Logger,
      ) => (options.network ? new IssuerLink(options.network, authorizations, logger) : null),
    },
  ],
  exports: [
    AuthorizationsService,
    ...AUTHORIZATIONS_CONTRACTS.map((contract) => contract.token),
    AuthorizationExpiryScheduler,
    ISSUER_LINK,
    CLEARING_FILE_SINK,
    ClearingExceptions,
  ],
})
export class AuthorizationsModule implements OnApplicationBootstrap, BeforeApplicationShutdown {
  constructor(
    @Inject(AuthorizationExpiryScheduler) private readonly expiry: AuthorizationExpiryScheduler,
    @Inject(ISSUER_LINK) private readonly link: IssuerLink | null,
  ) {}

  onApplicationBootstrap(): void {
    this.expiry.start();
    this.link?.start();
  }

  async beforeApplicationShutdown(): Promise<void> {
    await this.link?.close();
    await this.expiry.stop();
  }
}
