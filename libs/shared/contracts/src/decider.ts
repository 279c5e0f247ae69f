import type { DomainEventReader } from './upcasting';

/**
 * The shape of every context's domain (HOUSE-STYLE.md): pure functions, no IO, no clock, no id generation.
 * `decide` turns a command and the current state into new events (or throws a DomainError);
 * `evolve` folds one event into the state.
 */
export interface DomainEvent<Type extends string = string, Data = Record<string, unknown>> {
  type: Type;
  data: Data;
}

export interface Decider<Command, Event extends DomainEvent, State> {
  decide(command: Command, state: State): Event[];
  evolve(state: State, event: Event): State;
  initialState(): State;
  /** How the context's stored events are read (the upcasters of its event types). */
  events: DomainEventReader<Event>;
}

/** Folds events into a state with a decider's evolve. */
export const foldEvents = <Event extends DomainEvent, State>(
  decider: Pick<Decider<unknown, Event, State>, 'evolve' | 'initialState'>,
  events: Event[],
): State => events.reduce(decider.evolve, decider.initialState());
