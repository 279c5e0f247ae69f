import type { Decider, DomainEvent } from '@cip/shared/contracts';
import { timeOrderedUuid } from '@cip/shared/runtime';
import { EventMetadata, EventStore, ExpectedRevision, WrongExpectedRevisionError } from './event-store.port';

/** Who and what a command belongs to; becomes the metadata of the events it produces. */
export interface CommandContext {
  /** ISO time from the injected clock. */
  occurredAt: string;
  distributorId?: string;
  environment?: string;
  correlationId?: string;
  causationId?: string;
}

/** The context of a command made by an API caller: its tenant, and its request id as correlation and cause. */
export function callerContext(
  now: Date,
  caller: { distributorId: string; environment: string; requestId: string },
): CommandContext {
  return {
    occurredAt: now.toISOString(),
    distributorId: caller.distributorId,
    environment: caller.environment,
    correlationId: caller.requestId,
    causationId: caller.requestId,
  };
}

export interface CommandResult<State, Event> {
  state: State;
  /** Events appended by this command (empty when the command changed nothing). */
  events: Event[];
  /** Revision of the stream after the command (-1: still absent). */
  revision: number;
  /** Global position of the last event appended (0 when nothing was appended). */
  position: number;
}

/**
 * Folded states kept between commands (per stream, by the service that owns the streams), so a command
 * reads only the events appended since instead of the whole stream. Always caught up by a read before
 * deciding, so a stale entry (another process appended) costs a read, never a wrong decision.
 */
export interface StreamStateCache<State> {
  get(streamId: string): { state: State; revision: number } | undefined;
  set(streamId: string, state: State, revision: number): void;
}

export const SCHEMA_VERSION = 1;

export function envelope<E extends DomainEvent>(
  event: E,
  context: CommandContext,
): E & { metadata: EventMetadata } {
  return {
    ...event,
    metadata: {
      eventId: timeOrderedUuid(),
      occurredAt: context.occurredAt,
      distributorId: context.distributorId,
      environment: context.environment,
      correlationId: context.correlationId,
      causationId: context.causationId,
      schemaVersion: SCHEMA_VERSION,
    },
  };
}

/**
 * The command path of every context (ARCHITECTURE.md): load the stream, fold it, decide, append with the
 * revision that was read. When another writer got there first the whole thing runs again on the fresh
 * state, so a decision is never made on stale data; after `maxAttempts` the conflict surfaces.
 *
 * `command` may be a function of the current state (for commands whose content depends on it, such as a
 * tenant check or a fact the service must look up first).
 */
export async function handleCommand<Command, Event extends DomainEvent, State>(
  store: EventStore,
  decider: Decider<Command, Event, State>,
  streamId: string,
  command: Command | ((state: State, revision: number) => Command | Promise<Command>),
  context: CommandContext,
  options: {
    maxAttempts?: number;
    expectedRevision?: ExpectedRevision;
    /**
     * The stream is expected not to exist yet (a fresh id, a value nobody reserved): the first attempt
     * decides on the initial state and appends with `no_stream` without reading, saving a read on the hot
     * path; if the stream does exist after all, the conflict sends it down the normal path.
     */
    expectNew?: boolean;
    cache?: StreamStateCache<State>;
  } = {},
): Promise<CommandResult<State, Event>> {
  const maxAttempts = options.maxAttempts ?? 5;
  for (let attempt = 1; ; attempt++) {
    const loaded =
      attempt === 1 && options.expectNew
        ? { state: decider.initialState(), revision: -1 }
        : await loadState(store, decider, streamId, options.cache?.get(streamId));
    let state = loaded.state;
    const revision = loaded.revision;
    options.cache?.set(streamId, state, revision);
    const resolved =
      typeof command === 'function'
        ? await (command as (s: State, r: number) => Command | Promise<Command>)(state, revision)
        : command;
    const events = decider.decide(resolved, state);
    if (events.length === 0) return { state, events, revision, position: 0 };
    try {
      const expectedRevision = options.expectedRevision ?? (revision < 0 ? 'no_stream' : revision);
      const result = await store.append(
        streamId,
        events.map((e) => envelope(e, context)),
        { expectedRevision },
      );
      for (const event of events) state = decider.evolve(state, event);
      options.cache?.set(streamId, state, result.nextRevision);
      return { state, events, revision: result.nextRevision, position: result.position };
    } catch (error) {
      if (!(error instanceof WrongExpectedRevisionError) || attempt >= maxAttempts) throw error;
    }
  }
}

/**
 * Reads a stream and folds it (reads by id: always includes the caller's own writes); from a state
 * already folded up to a revision, reads and folds only the events after it.
 */
export async function loadState<Event extends DomainEvent, State>(
  store: EventStore,
  decider: Pick<Decider<unknown, Event, State>, 'evolve' | 'initialState' | 'events'>,
  streamId: string,
  from?: { state: State; revision: number },
): Promise<{ state: State; revision: number }> {
  const revision = from?.revision ?? -1;
  const recorded = await store.readStream(
    streamId,
    revision >= 0 ? { fromRevision: revision + 1 } : undefined,
  );
  let state = from?.state ?? decider.initialState();
  for (const event of recorded) state = decider.evolve(state, decider.events.read(event));
  return { state, revision: revision + recorded.length };
}
