import {
  Caller,
  defineContext,
  type Environment,
  type FindPage,
  type FindResult,
  type PublicEvent,
} from '@cip/shared/contracts';

export interface EventListFilter {
  eventName?: string;
  userId?: string;
}

/** What a distributor reads of its Events (GET /v1/events, GET /v1/events/{eventId}). */
export interface EventsApi {
  listEvents(caller: Caller, filter: EventListFilter, page: FindPage): Promise<FindResult<PublicEvent>>;
  getEvent(caller: Caller, eventId: string): Promise<PublicEvent>;
}

export const EVENTS_API = Symbol('EVENTS_API');

export const eventsContract = defineContext<EventsApi>({
  name: 'events',
  token: EVENTS_API,
  methods: {
    listEvents: ['caller', 'filter', 'page'],
    getEvent: ['caller', 'eventId'],
  },
});

/**
 * Where a recorded Event comes from: the log position of its domain event, and its rank among the Events
 * recorded from that domain event. The webhook dispatcher finds the Events of a domain event by it.
 */
export interface EventOrigin {
  position: number;
  index: number;
}

/**
 * A recorded public Event: the API shape plus its owner for tenant filtering and its origin (never
 * rendered). Records written before origins existed have none.
 */
export type EventRecord = PublicEvent & {
  distributorId: string;
  origin?: EventOrigin;
  [field: string]: unknown;
};

/** The Event as the API and the webhooks render it. */
export function renderEvent(record: EventRecord): PublicEvent {
  const { distributorId: _distributorId, origin: _origin, ...event } = record;
  return event as PublicEvent;
}

/** The domain event whose public Events the webhook dispatcher looks up. */
export interface DomainEventRef {
  eventId: string;
  position: number;
  occurredAt: string;
  distributorId?: string;
}

/**
 * The recorded Events as the webhook dispatcher (in the process that records them) reads them: the log of
 * public Events is the dispatcher's outbox. The dispatcher never reads the events context's tables.
 */
export interface PublicEventLog {
  /**
   * The Events recorded from one domain event, in order (none: it produced none, or the recorder has not
   * reached it yet; `caughtUp` first tells them apart).
   */
  recordedFrom(environment: Environment, domainEvent: DomainEventRef): Promise<EventRecord[]>;
  /** One Event record, whoever owns it (the caller checks the tenant); null when unknown. */
  findEvent(environment: Environment, eventId: string): Promise<EventRecord | null>;
  /** Waits (at most `timeoutMs`) until the recorder has read everything appended before the call. */
  caughtUp(environment: Environment, timeoutMs: number): Promise<void>;
}

export const PUBLIC_EVENT_LOG = Symbol('PUBLIC_EVENT_LOG');
