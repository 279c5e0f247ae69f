import type { Decider, DomainEvent } from '@cip/shared/contracts';
import { loadState, type StreamStateCache } from './command-handler';
import type { EventStore } from './event-store.port';

/**
 * The folded states of the most recently used streams (least recently used dropped beyond `capacity`), so a
 * command or a read by id (`loadState` from the cached state) reads and folds only the stream's newest
 * events: an entity with a long history costs the same as a new one, and one read several times per request
 * is folded once. Always caught up by that read, so an entry left behind by another process's appends costs
 * a read, never a stale answer.
 */
export class RecentStreamStates<State> implements StreamStateCache<State> {
  private readonly entries = new Map<string, { state: State; revision: number }>();

  constructor(private readonly capacity = 50_000) {}

  get(streamId: string) {
    return this.entries.get(streamId);
  }

  set(streamId: string, state: State, revision: number): void {
    this.entries.delete(streamId);
    this.entries.set(streamId, { state, revision });
    if (this.entries.size > this.capacity) this.entries.delete(this.entries.keys().next().value as string);
  }
}

/** How a stream folds into a state (a decider's `evolve`, `initialState` and event reader). */
export type StreamFold<Event extends DomainEvent, State> = Pick<
  Decider<unknown, Event, State>,
  'evolve' | 'initialState' | 'events'
>;

/**
 * Folded states kept per event store (`RecentStreamStates` each): `load` reads a stream from its kept revision
 * on (every event appended since, by any process, is folded in) and keeps the result; `of` gives a store's
 * states to a command path (`handleCommand`'s cache). Streams that do not exist are not kept, so lookups of
 * unknown ids never push the entities in use out.
 */
export class KeptStreamStates<Event extends DomainEvent, State> {
  private readonly stores = new Map<EventStore, RecentStreamStates<State>>();

  constructor(
    private readonly fold: StreamFold<Event, State>,
    private readonly capacity?: number,
  ) {}

  of(store: EventStore): RecentStreamStates<State> {
    let states = this.stores.get(store);
    if (!states) this.stores.set(store, (states = new RecentStreamStates<State>(this.capacity)));
    return states;
  }

  async load(store: EventStore, streamId: string): Promise<{ state: State; revision: number }> {
    const states = this.of(store);
    const loaded = await loadState(store, this.fold, streamId, states.get(streamId));
    if (loaded.revision >= 0) states.set(streamId, loaded.state, loaded.revision);
    return loaded;
  }
}
