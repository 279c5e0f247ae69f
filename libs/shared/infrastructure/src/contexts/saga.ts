import type { InjectionToken } from '@nestjs/common';
import type { IntegrationEvent, IntegrationEventType } from '@cip/shared/contracts';
import type { ConsumerDefinition } from '../consumers';
import type { ScopePorts, StoreScope } from '../infrastructure';

type EventOf<T> = T extends IntegrationEventType<infer E> ? E : never;

/**
 * A reaction of one context to another context's integration events (a process manager). It names the
 * events it reacts to by their contract's descriptions, never by bare strings, and it runs as a consumer
 * group of its own, so it resumes where it stopped and must be idempotent (a redelivered event changes
 * nothing twice). Its dependencies are injected by the context's module (`inject`, in order).
 */
export interface Saga<
  On extends readonly IntegrationEventType[] = readonly IntegrationEventType[],
  Deps extends unknown[] = never[],
> {
  /** The consumer group (its committed offset is the saga's position in the log; never rename it). */
  group: string;
  on: On;
  /** Scopes it runs in; both environments by default. */
  scopes?: StoreScope[];
  /** Providers the reaction needs, passed to `handle` in this order. */
  inject: { [K in keyof Deps]: InjectionToken };
  handle(deps: Deps, event: EventOf<On[number]>, ports: ScopePorts): Promise<void>;
}

/** Declares a saga (keeps the event type of `handle` tied to the events listed in `on`). */
export function defineSaga<
  const On extends readonly IntegrationEventType[],
  Deps extends unknown[] = never[],
>(saga: Saga<On, Deps>): Saga<On, Deps> {
  return saga;
}

/** The consumer group that runs a saga with its resolved dependencies, one event at a time in log order. */
export function sagaConsumer<On extends readonly IntegrationEventType[], Deps extends unknown[]>(
  saga: Saga<On, Deps>,
  deps: Deps,
): ConsumerDefinition {
  return {
    group: saga.group,
    topics: [...new Set(saga.on.map((type) => type.topic))],
    scopes: saga.scopes,
    async handle(ports, messages) {
      for (const { event } of messages) {
        if (saga.on.some((type) => type.is(event))) {
          await saga.handle(deps, event as unknown as EventOf<On[number]>, ports);
        }
      }
    },
  };
}

/** A saga with its dependency types erased, as the registry lists them. */
// eslint-disable-next-line @typescript-eslint/no-explicit-any -- sagas of different dependency lists
export type AnySaga = Saga<readonly IntegrationEventType[], any[]>;

export type { IntegrationEvent };
