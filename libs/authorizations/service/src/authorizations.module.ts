import { BeforeApplicationShutdown, Inject, Module, OnApplicationBootstrap } from '@nestjs/common';
import { authorizationDecisioningContract, authorizationsContract } from '@cip/authorizations/contract';
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
  Readiness,
} from '@cip/shared/infrastructure';
import {
  CLOCK,
  Clock,
  loadOrCreateSecret,
  Logger,
  METRICS,
  PlatformMetrics,
  SecretBox,
  systemResolver,
  type Resolver,
} from '@cip/shared/runtime';
import { randomBytes } from 'node:crypto';
import { CLEARING_FILE_SINK, clearingFileSinkContract } from '@cip/simulator/contract';
import { THREE_DS_VERIFICATION_API, type ThreeDsVerificationApi } from '@cip/three-ds/contract';
import { USER_LIFECYCLE_API, type UserLifecycleApi } from '@cip/users/contract';
import { WALLET_LEDGER, WALLETS_API, type WalletLedger, type WalletsApi } from '@cip/wallets/contract';
import { currentAuthorizationProgram } from './authorization-program.settings';
import { AuthorizationExpiryScheduler } from './authorization-expiry.scheduler';
import { AUTHORIZATION_LEDGER_GROUP } from './authorization-ledger.saga';
import { AuthorizationsService } from './authorizations.service';
import { UnrecordedHoldSweep, type UnrecordedHoldSweepOptions } from './unrecorded-hold.sweep';
import { ClearingExceptions } from './clearing-exceptions';
import { ClearingImport, ClearingImportMetrics } from './clearing-import';
import { IssuerLink, type CardNetworkLinkConfig } from './network/issuer-link';
import { DecisioningConfigs } from './decisioning/decisioning-configs';
import { DecisioningMetrics } from './decisioning/decisioning-metrics';
import { DistributorDecisioning } from './decisioning/distributor-decisioning';

/** What the app decides for the authorizations context (provided under AUTHORIZATIONS_OPTIONS). */
export interface AuthorizationsModuleOptions {
  /** The card network link (`CARD_NETWORK_ISO_ADDRESS`); none: the platform decides no card payment. */
  network?: CardNetworkLinkConfig;
  /**
   * Overrides a distributor's authorization settings (an embedding's or a test's choice); by default they are
   * the program's, as the distributor CLI sets them (`ProgramRules.authorization`), read at each call.
   */
  program?(environment: Environment, distributorId: string): AuthorizationProgram;
  /** Real-time decisioning by the distributors' endpoints (`/v1/authorization-decisioning`). */
  decisioning: AuthorizationDecisioningOptions;
  /** The unrecorded-hold sweep's timeout and interval (defaults: unrecorded-hold.sweep.ts). */
  unrecordedHolds?: UnrecordedHoldSweepOptions;
}

export interface AuthorizationDecisioningOptions {
  /** Where the key sealing the decisioning secrets is kept (DATA_DIR/secrets) unless `secretsKey` is set. */
  dataDir: string;
  /** 32-byte key (base64) sealing the decisioning secrets at rest; generated under DATA_DIR otherwise. */
  secretsKey?: string;
  /** WEBHOOK_ALLOW_PRIVATE_URLS: loopback and private addresses allowed in the sandbox (never in production). */
  allowPrivateUrls: boolean;
  /** How long an endpoint's open circuit stays open before one call is let through (10 s by default). */
  breakerResetTimeoutMs?: number;
  /** DNS resolution of decisioning hosts (tests substitute it). */
  resolver?: Resolver;
}

/** A decision request whose answer comes later than this is dropped (its answer was long since ignored). */
const LATE_ANSWER_CAP_MS = 10_000;

export const AUTHORIZATIONS_OPTIONS = Symbol('AUTHORIZATIONS_OPTIONS');

/** The authorizations context's APIs, by audience. */
export const AUTHORIZATIONS_CONTRACTS = [
  authorizationsContract,
  authorizationDecisioningContract,
  // The network's clearing files, delivered to the issuer's importer (declared by the simulator's contract).
  clearingFileSinkContract,
];

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
        DistributorDecisioning,
        { token: THREE_DS_VERIFICATION_API, optional: true },
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
        decisioning: DistributorDecisioning,
        threeDs: ThreeDsVerificationApi | undefined,
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
            threeDs: threeDs ?? null,
            authorizationProgram: (environment, distributorId) =>
              options.program?.(environment, distributorId) ??
              currentAuthorizationProgram(programs, distributorId),
          },
          clock,
          decisioning,
        ),
    },
    ...contractProviders(AuthorizationsService, [authorizationsContract]),
    {
      provide: DecisioningConfigs,
      inject: [INFRASTRUCTURE, CLOCK, AUTHORIZATIONS_OPTIONS],
      useFactory: (infrastructure: Infrastructure, clock: Clock, options: AuthorizationsModuleOptions) =>
        new DecisioningConfigs({
          eventStore: environmentStores(infrastructure).eventStore,
          secrets: new SecretBox(
            Buffer.from(
              loadOrCreateSecret({
                dataDir: options.decisioning.dataDir,
                name: 'authorization-decisioning-secrets-key',
                fromEnv: options.decisioning.secretsKey,
                generate: () => randomBytes(32).toString('base64'),
              }),
              'base64',
            ),
          ),
          addressPolicy: decisioningAddressPolicy(options.decisioning, 'sandbox'),
          clock,
        }),
    },
    ...contractProviders(DecisioningConfigs, [authorizationDecisioningContract]),
    {
      provide: DistributorDecisioning,
      inject: [DecisioningConfigs, CLOCK, LOGGER, METRICS, AUTHORIZATIONS_OPTIONS],
      useFactory: (
        configs: DecisioningConfigs,
        clock: Clock,
        logger: Logger,
        metrics: PlatformMetrics,
        options: AuthorizationsModuleOptions,
      ) =>
        new DistributorDecisioning(
          configs,
          (environment) => ({
            ...decisioningAddressPolicy(options.decisioning, environment),
            timeoutMs: LATE_ANSWER_CAP_MS,
            maxResponseBytes: 16 * 1024,
            maxSocketsPerOrigin: 64,
            userAgent: 'card-issuing-platform-decisioning/1',
          }),
          clock,
          logger,
          new DecisioningMetrics(metrics.registry),
          { breakerResetTimeoutMs: options.decisioning.breakerResetTimeoutMs ?? 10_000 },
        ),
    },
    {
      provide: AuthorizationExpiryScheduler,
      inject: [AuthorizationsService, INFRASTRUCTURE, ConsumerHost, CLOCK, LOGGER, METRICS],
      useFactory: (
        authorizations: AuthorizationsService,
        infrastructure: Infrastructure,
        consumers: ConsumerHost,
        clock: Clock,
        logger: Logger,
        metrics: PlatformMetrics,
      ) =>
        new AuthorizationExpiryScheduler(
          authorizations,
          {
            readStore: environmentStores(infrastructure).readStore,
            settle: consumers.settler(PROJECTION_GROUPS),
          },
          clock,
          logger,
          metrics,
        ),
    },
    {
      provide: UnrecordedHoldSweep,
      inject: [AuthorizationsService, INFRASTRUCTURE, CLOCK, LOGGER, AUTHORIZATIONS_OPTIONS],
      useFactory: (
        authorizations: AuthorizationsService,
        infrastructure: Infrastructure,
        clock: Clock,
        logger: Logger,
        options: AuthorizationsModuleOptions,
      ) =>
        new UnrecordedHoldSweep(
          authorizations,
          environmentStores(infrastructure),
          clock,
          logger,
          options.unrecordedHolds,
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
      inject: [AUTHORIZATIONS_OPTIONS, AuthorizationsService, LOGGER, Readiness],
      useFactory: (
        options: AuthorizationsModuleOptions,
        authorizations: AuthorizationsService,
        logger: Logger,
        readiness: Readiness,
      ) => {
        if (!options.network) return null;
        const link = new IssuerLink(options.network, authorizations, logger);
        // On /health for the operator (and the e2e specs: the issuer is in another process when split): a
        // link down does not take the service out (the network stands in; the link reconnects by itself).
        readiness.register(`card-network:${options.network.environment}`, () => ({
          ready: true,
          linked: link.isConnected,
        }));
        return link;
      },
    },
  ],
  exports: [
    AuthorizationsService,
    ...AUTHORIZATIONS_CONTRACTS.map((contract) => contract.token),
    AuthorizationExpiryScheduler,
    UnrecordedHoldSweep,
    ISSUER_LINK,
    ClearingExceptions,
    DecisioningConfigs,
    DistributorDecisioning,
  ],
})
export class AuthorizationsModule implements OnApplicationBootstrap, BeforeApplicationShutdown {
  constructor(
    @Inject(AuthorizationExpiryScheduler) private readonly expiry: AuthorizationExpiryScheduler,
    @Inject(UnrecordedHoldSweep) private readonly unrecordedHolds: UnrecordedHoldSweep,
    @Inject(ISSUER_LINK) private readonly link: IssuerLink | null,
    @Inject(DistributorDecisioning) private readonly decisioning: DistributorDecisioning,
  ) {}

  onApplicationBootstrap(): void {
    this.expiry.start();
    this.unrecordedHolds.start();
    this.link?.start();
  }

  async beforeApplicationShutdown(): Promise<void> {
    await this.link?.close();
    await this.expiry.stop();
    await this.unrecordedHolds.stop();
    this.decisioning.shutdown();
  }
}

/** Production never reaches a private address, whatever WEBHOOK_ALLOW_PRIVATE_URLS says. */
const decisioningAddressPolicy = (options: AuthorizationDecisioningOptions, environment: Environment) => ({
  allowPrivate: environment === 'sandbox' && options.allowPrivateUrls,
  resolver: options.resolver ?? systemResolver,
});
