import { DynamicModule, Module, Provider, Type } from '@nestjs/common';
import type { PublicEventMapper } from '@cip/shared/read-store';
import { ConsumerHost } from '../consumers';
import { ContextDefinition, publicEventMappers, readModelsOf } from './context-definition';
import { sagaConsumer } from './saga';

/** Injection token of the public Event mappers the process records and delivers (the events and webhooks contexts). */
export const PUBLIC_EVENT_MAPPERS = Symbol('PUBLIC_EVENT_MAPPERS');

const pascal = (name: string) => name.replace(/(^|[-.])(\w)/g, (_, _sep, c: string) => c.toUpperCase());

/**
 * Hosts a list of contexts in one process. Each context's module becomes global, so that the contract tokens
 * it provides (USERS_API, WALLET_LEDGER, ...) can be injected by any other context without importing its
 * module: a context depends on another one's contract, and whether the token is the service itself or a
 * transport client is the app's choice. The read models and sagas of the definitions are registered with
 * the consumer host here, once, instead of by hand in each module.
 */
@Module({})
export class ContextsModule {
  static forRoot(options: {
    contexts: readonly ContextDefinition[];
    /** Options and adapters the app chose for the contexts (only apps choose adapters). */
    providers?: Provider[];
    /**
     * The public Event mappers the hosted contexts record and deliver Events with: by default the hosted
     * contexts' own. A process hosting the events context apart from the others (the webhooks service) gives
     * every context's.
     */
    publicEvents?: PublicEventMapper[];
  }): DynamicModule {
    const { contexts } = options;
    const mappers = options.publicEvents ?? publicEventMappers(contexts);
    const readModels = readModelsOf(contexts, mappers);
    const hosts = contexts.map((context) => contextHost(context));
    return {
      module: ContextsModule,
      global: true,
      imports: hosts,
      providers: [
        ...(options.providers ?? []),
        { provide: PUBLIC_EVENT_MAPPERS, useValue: mappers },
        {
          provide: Symbol('READ_MODEL_CONSUMERS'),
          inject: [ConsumerHost],
          useFactory: (consumers: ConsumerHost) => {
            for (const model of readModels) consumers.registerReadModel(model);
            return readModels.map((model) => model.group);
          },
        },
      ],
      exports: [...(options.providers ?? []), PUBLIC_EVENT_MAPPERS, ...hosts],
    };
  }
}

/** The controllers of a list of contexts (what the gateway mounts). */
export const controllersOf = (contexts: readonly ContextDefinition[]): Type[] =>
  contexts.flatMap((context) => context.controllers);

function contextHost(context: ContextDefinition): DynamicModule {
  class ContextHost {}
  Object.defineProperty(ContextHost, 'name', { value: `${pascal(context.name)}ContextHost` });
  const sagas: Provider[] = context.sagas.map((saga) => ({
    provide: Symbol(`SAGA ${saga.group}`),
    inject: [ConsumerHost, ...saga.inject],
    useFactory: (consumers: ConsumerHost, ...deps: unknown[]) => {
      consumers.register(sagaConsumer(saga, deps));
      return saga.group;
    },
  }));
  return {
    module: ContextHost,
    global: true,
    imports: [context.module],
    providers: sagas,
    exports: [context.module],
  };
}
