import { Module } from '@nestjs/common';
import {
  CARD_PROVISIONING_API,
  CARDS_API,
  type CardProvisioningApi,
  type CardsApi,
} from '@cip/cards/contract';
import { PROGRAM_DIRECTORY, type ProgramDirectory } from '@cip/distributors/contract';
import type { Environment } from '@cip/shared/contracts';
import {
  ConsumerHost,
  contractProviders,
  environmentStores,
  Infrastructure,
  INFRASTRUCTURE,
} from '@cip/shared/infrastructure';
import { CLOCK, Clock } from '@cip/shared/runtime';
import { tokenizationContract, tokenizationSimulationContract } from '@cip/tokenization/contract';
import { tokensProjection } from '@cip/tokenization/read-models';
import { USER_LIFECYCLE_API, type UserLifecycleApi } from '@cip/users/contract';
import type { GooglePayOpcKeys } from './provisioning/google-opaque-payment-card';
import { TokenizationService } from './tokenization.service';

/** What the app decides for the tokenization context (provided under TOKENIZATION_OPTIONS). */
export interface TokenizationModuleOptions {
  /** The Google Pay OPC keys of an environment (embedded: `embeddedGooglePayKeys(dataDir)`). */
  googlePayKeys(environment: Environment): Promise<GooglePayOpcKeys>;
}

export const TOKENIZATION_OPTIONS = Symbol('TOKENIZATION_OPTIONS');

/** The tokenization context's APIs, by audience. */
export const TOKENIZATION_CONTRACTS = [tokenizationContract, tokenizationSimulationContract];

/** How long the card-status-tokens saga waits for the tokens read model before failing (and being retried). */
const TOKENS_CATCH_UP_MS = 10_000;

/**
 * The tokenization context: digital-wallet tokens of cards. It reaches cards through their contracts
 * (CARDS_API for the card, CARD_PROVISIONING_API for its PAN and expiry), users for the activation code's
 * contact (USER_LIFECYCLE_API), and the distributors' programs for its saga's caller.
 */
@Module({
  providers: [
    {
      provide: TokenizationService,
      inject: [
        INFRASTRUCTURE,
        ConsumerHost,
        CLOCK,
        TOKENIZATION_OPTIONS,
        CARDS_API,
        CARD_PROVISIONING_API,
        USER_LIFECYCLE_API,
        PROGRAM_DIRECTORY,
      ],
      useFactory: (
        infrastructure: Infrastructure,
        consumers: ConsumerHost,
        clock: Clock,
        options: TokenizationModuleOptions,
        cards: CardsApi,
        provisioning: CardProvisioningApi,
        users: UserLifecycleApi,
        programs: ProgramDirectory,
      ) =>
        new TokenizationService(
          {
            ...environmentStores(infrastructure),
            settle: consumers.settler([`projection.${tokensProjection.name}`]),
            catchUp: (environment) =>
              consumers.drain(environment, [`projection.${tokensProjection.name}`], TOKENS_CATCH_UP_MS),
            cards,
            provisioning,
            users,
            programs,
            googlePayKeys: (environment) => options.googlePayKeys(environment),
          },
          clock,
        ),
    },
    ...contractProviders(TokenizationService, TOKENIZATION_CONTRACTS),
  ],
  exports: [TokenizationService, ...TOKENIZATION_CONTRACTS.map((contract) => contract.token)],
})
export class TokenizationModule {}
