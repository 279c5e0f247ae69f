import type { DomainEvent } from './decider';

/** What an upcaster sees of a stored event: its type and data as they were written. */
export interface StoredShape {
  type: string;
  data: Record<string, unknown>;
}

/**
 * Lifts a stored event of an older shape to a newer one. A breaking change gets a new type (`CardIssued` ->
 * `CardIssued.v2`) and an upcaster keyed by the old type; a compatible change (a field with a default) may
 * keep the type. Stored events are never rewritten: they are lifted every time they are read.
 */
export type Upcaster = (event: StoredShape) => StoredShape;

/**
 * How a context reads its stored events: the one place where an event of the log becomes a typed domain
 * event, after the upcasters of its type (as emmett does: keyed by type, on read). Deciders, projections,
 * public-event mappers and services read through it instead of casting.
 */
export interface DomainEventReader<E extends DomainEvent> {
  read<R extends StoredShape>(stored: R): Omit<R, 'type' | 'data'> & E;
}

/** Chains at most this many upcasters on one event (a cycle in the table is a bug, reported loudly). */
const MAX_UPCASTS = 16;

export function domainEventReader<E extends DomainEvent>(
  upcasters: Readonly<Record<string, Upcaster>> = {},
): DomainEventReader<E> {
  return {
    read<R extends StoredShape>(stored: R): Omit<R, 'type' | 'data'> & E {
      let current: StoredShape = { type: stored.type, data: stored.data };
      for (let step = 0; Object.hasOwn(upcasters, current.type); step++) {
        if (step === MAX_UPCASTS) throw new Error(`Upcasters of ${stored.type} do not end`);
        const next = upcasters[current.type](current);
        const sameType = next.type === current.type;
        current = next;
        // An upcaster that keeps the type is the last word on that type.
        if (sameType) break;
      }
      if (current.type === stored.type && current.data === stored.data)
        return stored as unknown as Omit<R, 'type' | 'data'> & E;
      // The only cast from the log's untyped events to the domain's: what the upcasters produced is the
      // current shape of the type by construction.
      return { ...stored, type: current.type, data: current.data } as unknown as Omit<R, 'type' | 'data'> & E;
    },
  };
}
