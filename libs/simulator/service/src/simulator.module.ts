import { Inject, Module, OnApplicationBootstrap, OnApplicationShutdown } from '@nestjs/common';
import { AUTHORIZATIONS_API, type AuthorizationsApi } from '@cip/authorizations/contract';
import { CARD_SANDBOX_API, type CardSandboxApi } from '@cip/cards/contract';
import type { Environment } from '@cip/shared/contracts';
import { contractProviders } from '@cip/shared/infrastructure';
import { CLOCK, type Clock } from '@cip/shared/runtime';
import {
  CLEARING_FILE_SINK,
  simulatedDirectoryServerContract,
  simulatorContract,
  threeDsSimulationContract,
  type ClearingFileSink,
} from '@cip/simulator/contract';
import { THREE_DS_API, type ThreeDsApi } from '@cip/three-ds/contract';
import type { CardNetwork } from './card-network';
import type { SimulatorStore } from './simulator-store';
import { SimulatorService, type SimulatedAcquirer } from './simulator.service';
import type { ThreeDsServerStore } from './three-ds/three-ds-server-store';
import { ThreeDsServerSimulator } from './three-ds/three-ds-server';

/** What the app decides for the simulator (provided under SIMULATOR_OPTIONS; see `startSandboxNetwork`). */
export interface SimulatorModuleOptions {
  /** The sandbox's network (listening for the issuer); null for production. */
  network(environment: Environment): CardNetwork | null;
  store(environment: Environment): SimulatorStore;
  /** The sandbox 3DS server's journal of an environment. */
  threeDsStore(environment: Environment): ThreeDsServerStore;
  acquirer: SimulatedAcquirer;
  adviceWaitMs?: number;
  /** Stops the network (the app's shutdown). */
  close(): Promise<void>;
}

export const SIMULATOR_OPTIONS = Symbol('SIMULATOR_OPTIONS');

export const SIMULATOR_CONTRACTS = [
  simulatorContract,
  threeDsSimulationContract,
  simulatedDirectoryServerContract,
];

/** Forwards the advices owed from before a restart once the app is up; closes the network with it. */
export class SimulatorLifecycle implements OnApplicationBootstrap, OnApplicationShutdown {
  constructor(
    @Inject(SIMULATOR_OPTIONS) private readonly options: SimulatorModuleOptions,
    @Inject(SimulatorService) private readonly simulator: SimulatorService,
  ) {}

  async onApplicationBootstrap(): Promise<void> {
    await this.simulator.forwardOwedAdvices('sandbox');
  }

  onApplicationShutdown(): Promise<void> {
    return this.options.close();
  }
}

/**
 * The card network and acquirers of the sandbox. Reaches cards (the cardholder's details) and authorizations
 * (the issuer's record, by network reference) by their contracts; authorizations and the clearing importer
 * are optional until the issuer side is in the runtime.
 */
@Module({
  providers: [
    {
      provide: SimulatorService,
      inject: [
        CLOCK,
        SIMULATOR_OPTIONS,
        CARD_SANDBOX_API,
        { token: AUTHORIZATIONS_API, optional: true },
        { token: CLEARING_FILE_SINK, optional: true },
      ],
      useFactory: (
        clock: Clock,
        options: SimulatorModuleOptions,
        cards: CardSandboxApi,
        authorizations: AuthorizationsApi | undefined,
        clearingSink: ClearingFileSink | undefined,
      ) =>
        new SimulatorService(
          {
            network: (environment) => options.network(environment),
            store: (environment) => options.store(environment),
            threeDsStore: (environment) => options.threeDsStore(environment),
            cards,
            authorizations: authorizations ?? null,
            clearingSink: clearingSink ?? null,
            acquirer: options.acquirer,
            adviceWaitMs: options.adviceWaitMs,
          },
          clock,
        ),
    },
    ...contractProviders(SimulatorService, [simulatorContract]),
    {
      provide: ThreeDsServerSimulator,
      inject: [CLOCK, SIMULATOR_OPTIONS, CARD_SANDBOX_API, { token: THREE_DS_API, optional: true }],
      useFactory: (
        clock: Clock,
        options: SimulatorModuleOptions,
        cards: CardSandboxApi,
        threeDs: ThreeDsApi | undefined,
      ) =>
        new ThreeDsServerSimulator(
          { cards, threeDs: threeDs ?? null, store: (environment) => options.threeDsStore(environment) },
          clock,
        ),
    },
    ...contractProviders(ThreeDsServerSimulator, [
      threeDsSimulationContract,
      simulatedDirectoryServerContract,
    ]),
    SimulatorLifecycle,
  ],
  exports: [
    SimulatorService,
    ThreeDsServerSimulator,
    ...SIMULATOR_CONTRACTS.map((contract) => contract.token),
  ],
})
export class SimulatorModule {}
