import { BeforeApplicationShutdown, Inject, Module, OnApplicationBootstrap } from '@nestjs/common';
import { PROGRAM_DIRECTORY, ProgramDirectory } from '@cip/distributors/contract';
import { kycLinkDeadlinesProjection, kycsProjection } from '@cip/kyc/read-models';
import {
  ConsumerHost,
  contractProviders,
  environmentStores,
  Infrastructure,
  INFRASTRUCTURE,
  LOGGER,
} from '@cip/shared/infrastructure';
import { CLOCK, Clock, Logger, METRICS, PlatformMetrics } from '@cip/shared/runtime';
import { USER_LIFECYCLE_API, UserLifecycleApi } from '@cip/users/contract';
import {
  kycContract,
  kycHostedPagesContract,
  kycOperatorContract,
  kycSimulationContract,
} from '@cip/kyc/contract';
import { KycExpiryScheduler } from './kyc-expiry.scheduler';
import { IDENTITY_PROVIDER, KYC_USER_DIRECTORY, KycUserDirectory } from './kyc.ports';
import { KycService } from './kyc.service';
import { SandboxIdentityProvider } from './sandbox-provider/sandbox-identity-provider';
import { UsersForKyc } from './users/users-for-kyc';

/** What the app decides for the KYC context (provided under KYC_OPTIONS). */
export interface KycOptions {
  /** Key of the sandbox provider's link signatures (a platform secret; see `loadKycLinkKey`). */
  linkKey: string;
}

export const KYC_OPTIONS = Symbol('KYC_OPTIONS');

/** The KYC context's APIs, by audience. */
export const KYC_CONTRACTS = [
  kycContract,
  kycOperatorContract,
  kycSimulationContract,
  kycHostedPagesContract,
];

const PROJECTION_GROUPS = [kycsProjection, kycLinkDeadlinesProjection].map((p) => `projection.${p.name}`);

/**
 * The KYC context: command handlers, the sandbox provider, the expiry sweep. It reaches the users context
 * through the users contract (USER_LIFECYCLE_API), whoever provides it.
 */
@Module({
  providers: [
    {
      provide: KYC_USER_DIRECTORY,
      inject: [USER_LIFECYCLE_API, PROGRAM_DIRECTORY],
      useFactory: (users: UserLifecycleApi, programs: ProgramDirectory) => new UsersForKyc(users, programs),
    },
    {
      provide: SandboxIdentityProvider,
      inject: [KYC_OPTIONS],
      useFactory: (options: KycOptions) => new SandboxIdentityProvider(options.linkKey),
    },
    { provide: IDENTITY_PROVIDER, useExisting: SandboxIdentityProvider },
    {
      provide: KycService,
      inject: [INFRASTRUCTURE, ConsumerHost, CLOCK, KYC_USER_DIRECTORY, SandboxIdentityProvider],
      useFactory: (
        infrastructure: Infrastructure,
        consumers: ConsumerHost,
        clock: Clock,
        users: KycUserDirectory,
        provider: SandboxIdentityProvider,
      ) =>
        new KycService(
          {
            ...environmentStores(infrastructure),
            settle: consumers.settler(PROJECTION_GROUPS),
            users,
            provider,
            hostedFlow: provider,
          },
          clock,
        ),
    },
    ...contractProviders(KycService, KYC_CONTRACTS),
    {
      provide: KycExpiryScheduler,
      inject: [KycService, INFRASTRUCTURE, ConsumerHost, CLOCK, LOGGER, METRICS],
      useFactory: (
        kyc: KycService,
        infrastructure: Infrastructure,
        consumers: ConsumerHost,
        clock: Clock,
        logger: Logger,
        metrics: PlatformMetrics,
      ) =>
        new KycExpiryScheduler(
          kyc,
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
    KycService,
    ...KYC_CONTRACTS.map((contract) => contract.token),
    KYC_USER_DIRECTORY,
    KycExpiryScheduler,
    SandboxIdentityProvider,
    IDENTITY_PROVIDER,
  ],
})
export class KycModule implements OnApplicationBootstrap, BeforeApplicationShutdown {
  constructor(@Inject(KycExpiryScheduler) private readonly expiry: KycExpiryScheduler) {}

  onApplicationBootstrap(): void {
    this.expiry.start();
  }

  async beforeApplicationShutdown(): Promise<void> {
    await this.expiry.stop();
  }
}
