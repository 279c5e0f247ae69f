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

/** A recorded public Event: the API shape plus its owner for tenant filtering (never rendered). */
export type EventRecord = PublicEvent & { distributorId: string; [field: string]: unknown };

/** The Event as the API and the webhooks render it. */
export function renderEvent(record: EventRecord): PublicEvent {
  const { distributorId: _distributorId, ...event } = record;
  return event as PublicEvent;
}

/**
 * The recorded Events as the webhook dispatcher (in the process that records them) reads them: the log of
 * public Events is the dispatcher's outbox. The dispatcher never reads the events context's tables.
 */
export interface PublicEventLog {
  /** The Events recorded from one domain event, in order; null when the recorder has not reached it yet. */
  recordedFrom(environment: Environment, domainEventId: string): Promise<EventRecord[] | null>;
  /** One Event record, whoever owns it (the caller checks the tenant); null when unknown. */
  findEvent(environment: Environment, eventId: string): Promise<EventRecord | null>;
  /** Waits (at most `timeoutMs`) until the recorder has read everything appended before the call. */
  caughtUp(environment: Environment, timeoutMs: number): Promise<void>;
}

export const PUBLIC_EVENT_LOG = Symbol('PUBLIC_EVENT_LOG');
