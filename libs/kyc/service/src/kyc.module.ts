import {
  BeforeApplicationShutdown,
  DynamicModule,
  Inject,
  InjectionToken,
  Module,
  ModuleMetadata,
  OnApplicationBootstrap,
} from '@nestjs/common';
import { kycLinkDeadlinesProjection, kycsProjection } from '@cip/kyc/read-models';
import { Environment } from '@cip/shared/contracts';
import { ConsumerHost, Infrastructure, INFRASTRUCTURE, LOGGER } from '@cip/shared/infrastructure';
import { CLOCK, Clock, Logger } from '@cip/shared/runtime';
import { KYC_API } from './kyc.api';
import { KycExpiryScheduler } from './kyc-expiry.scheduler';
import { IDENTITY_PROVIDER, KYC_USER_DIRECTORY, KycUserDirectory } from './kyc.ports';
import { KycService } from './kyc.service';
import { rfiOutcomesSaga } from './kyc-rfi-outcomes.saga';
import { SandboxIdentityProvider } from './sandbox-provider/sandbox-identity-provider';

export interface KycModuleOptions {
  /** Modules providing what the user directory needs. */
  imports?: ModuleMetadata['imports'];
  /** The users context as KYC needs it; bound by the app, since contexts never import each other. */
  userDirectory: { inject: InjectionToken[]; useFactory: (...deps: never[]) => KycUserDirectory };
  /** Key of the sandbox provider's link signatures (a platform secret). */
  linkKey: string;
}

const PROJECTION_GROUPS = [kycsProjection, kycLinkDeadlinesProjection].map((p) => `projection.${p.name}`);

/** The KYC context: command handlers, the sandbox provider, the expiry sweep, the RFI saga, read models. */
@Module({})
export class KycModule implements OnApplicationBootstrap, BeforeApplicationShutdown {
  static forRoot(options: KycModuleOptions): DynamicModule {
    return {
      module: KycModule,
      imports: options.imports ?? [],
      providers: [
        {
          provide: KYC_USER_DIRECTORY,
          inject: options.userDirectory.inject,
          useFactory: options.userDirectory.useFactory,
        },
        { provide: SandboxIdentityProvider, useValue: new SandboxIdentityProvider(options.linkKey) },
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
                eventStore: (environment: Environment) => infrastructure.scope(environment).eventStore,
                readStore: (environment: Environment) => infrastructure.scope(environment).readStore,
                settle: (environment: Environment) => consumers.settle(environment, PROJECTION_GROUPS),
                users,
                provider,
                hostedFlow: provider,
              },
              clock,
            ),
        },
        { provide: KYC_API, useExisting: KycService },
        {
          provide: KycExpiryScheduler,
          inject: [KycService, INFRASTRUCTURE, ConsumerHost, CLOCK, LOGGER],
          useFactory: (
            kyc: KycService,
            infrastructure: Infrastructure,
            consumers: ConsumerHost,
            clock: Clock,
            logger: Logger,
          ) =>
            new KycExpiryScheduler(
              kyc,
              {
                readStore: (environment: Environment) => infrastructure.scope(environment).readStore,
                settle: (environment: Environment) => consumers.settle(environment, PROJECTION_GROUPS),
              },
              clock,
              logger,
            ),
        },
      ],
      exports: [KycService, KYC_API, KycExpiryScheduler, SandboxIdentityProvider, IDENTITY_PROVIDER],
    };
  }

  constructor(
    @Inject(ConsumerHost) consumers: ConsumerHost,
    @Inject(KYC_USER_DIRECTORY) users: KycUserDirectory,
    @Inject(KycExpiryScheduler) private readonly expiry: KycExpiryScheduler,
  ) {
    consumers.registerProjection(kycsProjection);
    consumers.registerProjection(kycLinkDeadlinesProjection);
    consumers.register(rfiOutcomesSaga(users));
  }

  onApplicationBootstrap(): void {
    this.expiry.start();
  }

  async beforeApplicationShutdown(): Promise<void> {
    await this.expiry.stop();
  }
}
