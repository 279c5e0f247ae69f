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
import { CLOCK, type Clock, type Logger } from '@cip/shared/runtime';
import { acsContract, threeDsContract, type RReq } from '@cip/three-ds/contract';
import { cardAuthenticationsProjection } from '@cip/three-ds/read-models';
import { WALLETS_API, type WalletsApi } from '@cip/wallets/contract';
import { CardAuthenticationExpiryScheduler } from './card-authentication-expiry.scheduler';
import { DirectoryServerClient } from './directory-server-client';
import { ThreeDsService } from './three-ds.service';

/** What the app may decide for the 3DS context (optional, under THREE_DS_OPTIONS). */
export interface ThreeDsModuleOptions {
  /** How RReqs reach the directory server; HTTP POST to the AReq's `dsURL` by default. */
  sendResult?(environment: Environment, dsURL: string, rreq: RReq): Promise<unknown>;
}

export const THREE_DS_OPTIONS = Symbol('THREE_DS_OPTIONS');

/** The 3DS context's APIs, by audience: distributors (`/v1/3ds`) and the directory server (the ACS). */
export const THREE_DS_CONTRACTS = [threeDsContract, acsContract];

const PROJECTION_GROUPS = [`projection.${cardAuthenticationsProjection.name}`];

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
        options: ThreeDsModuleOptions | undefined,
      ) =>
        new ThreeDsService(
          {
            ...environmentStores(infrastructure),
            cards,
            wallets,
            programs,
            sendResult:
              options?.sendResult ??
              ((environment, dsURL, rreq) => directoryServer.sendResult(environment, dsURL, rreq)),
            logger,
          },
          clock,
        ),
    },
    ...contractProviders(ThreeDsService, THREE_DS_CONTRACTS),
    {
      provide: CardAuthenticationExpiryScheduler,
      inject: [ThreeDsService, INFRASTRUCTURE, ConsumerHost, CLOCK, LOGGER],
      useFactory: (
        threeDs: ThreeDsService,
        infrastructure: Infrastructure,
        consumers: ConsumerHost,
        clock: Clock,
        logger: Logger,
      ) =>
        new CardAuthenticationExpiryScheduler(
          threeDs,
          {
            readStore: environmentStores(infrastructure).readStore,
            settle: consumers.settler(PROJECTION_GROUPS),
          },
          clock,
          logger,
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
