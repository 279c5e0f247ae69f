/**
 * Integration events: the domain events a context publishes for other contexts to react to, as its contract
 * declares them. A reaction (a saga) matches them with the guards below, by topic and type, never by a bare
 * string, so renaming or dropping a published event breaks the build of every context that reacts to it.
 */
export interface IntegrationEvent<Type extends string = string, Data = Record<string, unknown>> {
  type: Type;
  data: Data;
  streamId: string;
  revision: number;
  position: number;
  metadata: {
    eventId: string;
    occurredAt: string;
    distributorId?: string;
    environment?: string;
    correlationId?: string;
    causationId?: string;
  };
}

/** The description of one published event: the topic (stream category) it is on, its type, and a guard. */
export interface IntegrationEventType<E extends IntegrationEvent = IntegrationEvent> {
  readonly topic: string;
  readonly type: E['type'];
  /** True when a recorded event of the log is this integration event. */
  is(event: { streamId: string; type: string }): event is E;
}

export function integrationEvent<E extends IntegrationEvent>(
  topic: string,
  type: E['type'],
): IntegrationEventType<E> {
  const prefix = `${topic}-`;
  return {
    topic,
    type,
    is: (event): event is E => event.type === type && event.streamId.startsWith(prefix),
  };
}
