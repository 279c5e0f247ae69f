import { Inject, Module, OnApplicationShutdown } from '@nestjs/common';
import {
  cardOperationsContract,
  cardProvisioningContract,
  cardsContract,
  cardSimulationContract,
  cardRevealContract,
  cardVerificationContract,
  cardNetworkContract,
  cardSandboxContract,
} from '@cip/cards/contract';
import { cardsProjection } from '@cip/cards/read-models';
import type { CardVault } from '@cip/cards/vault';
import type { Environment } from '@cip/shared/contracts';
import {
  ConsumerHost,
  contractProviders,
  environmentStores,
  Infrastructure,
  INFRASTRUCTURE,
} from '@cip/shared/infrastructure';
import { CLOCK, Clock } from '@cip/shared/runtime';
import { USER_LIFECYCLE_API, UserLifecycleApi } from '@cip/users/contract';
import { WALLETS_API, WalletsApi } from '@cip/wallets/contract';
import { CardRevealService } from './card-reveal.service';
import { CardIssuing, CardsService } from './cards.service';
import type { FulfilmentProvider } from './fulfilment/fulfilment-provider.port';
import { CARD_FULFILMENT_GROUP } from './sagas/card-fulfilment.saga';
import { CardOperationsService } from './card-operations.service';
import { CardStates } from './card-states';
import { CardNetworkService } from './card-network.service';
import { CardSandboxService } from './card-sandbox.service';

/** What the app decides for the cards context (provided under CARDS_OPTIONS). */
export interface CardsModuleOptions {
  /** The card vault of an environment (embedded: `openEmbeddedCardVault`). */
  vault(environment: Environment): CardVault;
  /** The BIN and card lifetime of an environment; null when it has none (it then issues no card). */
  issuing(environment: Environment): CardIssuing | null;
  /** The card bureau of an environment; null when it has none (it then issues no physical card, `503`). */
  fulfilment(environment: Environment): FulfilmentProvider | null;
  /** Closes the vaults, once no request can reach them any more. */
  close(): Promise<void>;
}

export const CARDS_OPTIONS = Symbol('CARDS_OPTIONS');

/** The cards context's APIs, by audience. */
export const CARDS_CONTRACTS = [cardsContract, cardSimulationContract, cardProvisioningContract];

/** The APIs of operators (holds, unblock) and of the authorizations context (PIN/CVV2 outcomes). */
export const CARD_OPERATIONS_CONTRACTS = [cardOperationsContract, cardVerificationContract];

/** The single-use reveal of a card's details (its own service, `CardRevealService`). */
export const CARD_REVEAL_CONTRACTS = [cardRevealContract];

/** The card network's audience: the authorizations context finds cards by PAN and checks CVV2 and PIN. */
export const CARD_NETWORK_CONTRACTS = [cardNetworkContract];
/** The sandbox card network playing the cardholder (its own service, `CardSandboxService`). */
export const CARD_SANDBOX_CONTRACTS = [cardSandboxContract];

/** Closes the vaults with the application. */
export class CardVaultsLifecycle implements OnApplicationShutdown {
  constructor(@Inject(CARDS_OPTIONS) private readonly options: CardsModuleOptions) {}

  onApplicationShutdown(): Promise<void> {
    return this.options.close();
  }
}

/** How long the user-stopped saga waits for the cards read model before failing (and being retried). */
const CARDS_CATCH_UP_MS = 10_000;

/**
 * The cards context: command handlers behind the distributor contract, issuing through the card vault. It
 * reaches users and wallets through their contracts (USER_LIFECYCLE_API, WALLETS_API).
 */
@Module({
  providers: [
    {
      provide: CardsService,
      inject: [INFRASTRUCTURE, ConsumerHost, CLOCK, CARDS_OPTIONS, USER_LIFECYCLE_API, WALLETS_API],
      useFactory: (
        infrastructure: Infrastructure,
        consumers: ConsumerHost,
        clock: Clock,
        options: CardsModuleOptions,
        users: UserLifecycleApi,
        wallets: WalletsApi,
      ) =>
        new CardsService(
          {
            ...environmentStores(infrastructure),
            settle: consumers.settler([`projection.${cardsProjection.name}`]),
            catchUp: (environment) =>
              consumers.drain(environment, [`projection.${cardsProjection.name}`], CARDS_CATCH_UP_MS),
            vault: (environment) => options.vault(environment),
            issuing: (environment) => options.issuing(environment),
            fulfilment: (environment) => options.fulfilment(environment),
            settleFulfilment: consumers.settler([CARD_FULFILMENT_GROUP]),
            users,
            wallets,
          },
          clock,
        ),
    },
    ...contractProviders(CardsService, CARDS_CONTRACTS),
    {
      provide: CardOperationsService,
      inject: [INFRASTRUCTURE, CLOCK],
      useFactory: (infrastructure: Infrastructure, clock: Clock) =>
        new CardOperationsService(environmentStores(infrastructure), clock),
    },
    ...contractProviders(CardOperationsService, CARD_OPERATIONS_CONTRACTS),
    {
      provide: CardRevealService,
      inject: [INFRASTRUCTURE, CLOCK, CARDS_OPTIONS],
      useFactory: (infrastructure: Infrastructure, clock: Clock, options: CardsModuleOptions) =>
        new CardRevealService(
          {
            eventStore: environmentStores(infrastructure).eventStore,
            vault: (environment) => options.vault(environment),
          },
          clock,
        ),
    },
    ...contractProviders(CardRevealService, CARD_REVEAL_CONTRACTS),
    {
      provide: CardStates,
      inject: [INFRASTRUCTURE],
      useFactory: (infrastructure: Infrastructure) =>
        new CardStates(environmentStores(infrastructure).eventStore),
    },
    {
      provide: CardNetworkService,
      inject: [INFRASTRUCTURE, CARDS_OPTIONS, CardOperationsService, CardStates],
      useFactory: (
        infrastructure: Infrastructure,
        options: CardsModuleOptions,
        verification: CardOperationsService,
        cards: CardStates,
      ) =>
        new CardNetworkService({
          eventStore: environmentStores(infrastructure).eventStore,
          vault: (environment) => options.vault(environment),
          verification,
          cards,
        }),
    },
    ...contractProviders(CardNetworkService, CARD_NETWORK_CONTRACTS),
    {
      provide: CardSandboxService,
      inject: [INFRASTRUCTURE, CARDS_OPTIONS, CardStates],
      useFactory: (infrastructure: Infrastructure, options: CardsModuleOptions, cards: CardStates) =>
        new CardSandboxService({
          eventStore: environmentStores(infrastructure).eventStore,
          vault: (environment) => options.vault(environment),
          cards,
        }),
    },
    ...contractProviders(CardSandboxService, CARD_SANDBOX_CONTRACTS),
    CardVaultsLifecycle,
  ],
  exports: [
    CardsService,
    ...CARDS_CONTRACTS.map((contract) => contract.token),
    CardOperationsService,
    ...CARD_OPERATIONS_CONTRACTS.map((contract) => contract.token),
    CardRevealService,
    ...CARD_REVEAL_CONTRACTS.map((contract) => contract.token),
    CardNetworkService,
    ...CARD_NETWORK_CONTRACTS.map((contract) => contract.token),
    CardSandboxService,
    ...CARD_SANDBOX_CONTRACTS.map((contract) => contract.token),
  ],
})
export class CardsModule {}
