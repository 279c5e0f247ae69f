import type { DynamicModule, Provider, Type } from '@nestjs/common';
import type { ContextContract, PersonalDataPolicy } from '@cip/shared/contracts';
import type { PublicEventMapper } from '@cip/shared/read-store';
import type { RebuildableReadModel } from '../projections/verify-projections';
import type { AnySaga } from './saga';

/**
 * Everything the platform needs to know about one bounded context, in one value that the context exports
 * (`<context>.context.ts` in its service lib). The embedded platform, the service apps, the webhook
 * dispatcher's topics and the CLI's `projections list|verify|rebuild` all derive from the list of these
 * (the registry), so adding a context touches that list and nothing else outside the context.
 */
export interface ContextDefinition {
  name: string;
  /**
   * The context's APIs, one per audience (distributor API, operator actions, sandbox simulations, hosted
   * pages): its module provides each under the contract's token; other processes get transport clients.
   */
  // eslint-disable-next-line @typescript-eslint/no-explicit-any -- contracts of different APIs
  contracts: ContextContract<any>[];
  /**
   * The Nest module of the context: command handlers, schedulers, adapters. It is configured by injection
   * (options tokens the app provides, other contexts' contract tokens), never by the registry.
   */
  module: Type | DynamicModule;
  /** Read models kept by consumer groups of the log; verified and rebuilt by operators. */
  readModels: RebuildableReadModel[] | ((mappers: PublicEventMapper[]) => RebuildableReadModel[]);
  /** How the context's domain events become public Events (the recorder, the webhooks). */
  publicEvents: PublicEventMapper[];
  /** The context's reactions to other contexts' integration events. */
  sagas: AnySaga[];
  /** The HTTP controllers of the context's contracts, mounted by the gateway. */
  controllers: Type[];
  /**
   * Which fields of the context's events are personal data, and whose (sealed with the subject's key in
   * the log, see PersonalDataVault). Every runtime that writes the context's events seals with it.
   */
  personalData?: PersonalDataPolicy;
}

/** The personal-data policies of a set of contexts, as the infrastructure takes them. */
export const personalDataOf = (contexts: readonly ContextDefinition[]): PersonalDataPolicy[] =>
  contexts.flatMap((context) => (context.personalData ? [context.personalData] : []));

/** Every public Event mapper of a set of contexts. */
export const publicEventMappers = (contexts: readonly ContextDefinition[]): PublicEventMapper[] =>
  contexts.flatMap((context) => context.publicEvents);

/**
 * Every read model of a set of contexts, in the order of the list (the order a rebuild replays them). Read
 * models over public Events (the recorder) take `mappers`: by default those of the same contexts.
 */
export function readModelsOf(
  contexts: readonly ContextDefinition[],
  mappers: PublicEventMapper[] = publicEventMappers(contexts),
): RebuildableReadModel[] {
  return contexts.flatMap((context) =>
    typeof context.readModels === 'function' ? context.readModels(mappers) : context.readModels,
  );
}

/** Provides each contract's token with the service that implements it, in the process that hosts it. */
export const contractProviders = (
  service: Type,
  // eslint-disable-next-line @typescript-eslint/no-explicit-any -- contracts of different APIs
  contracts: readonly ContextContract<any>[],
): Provider[] => contracts.map((contract) => ({ provide: contract.token, useExisting: service }));
