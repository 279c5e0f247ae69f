import type { EventListFilter, EventRecord, EventsApi, PublicEventLog } from '@cip/events/contract';
import { EVENT_RECORDS, findRecordedEvents, renderEvent } from '@cip/events/read-models';
import { Caller, Environment, FindPage, FindResult, notFound, PublicEvent } from '@cip/shared/contracts';
import type { ReadStore } from '@cip/shared/read-store';

export const PUBLIC_EVENTS_GROUP = 'public-events';

export interface EventsPorts {
  readStore(environment: Environment): ReadStore;
  /** Waits until the recorder has read what was appended before the call (read-your-writes). */
  settle(environment: Environment): Promise<void>;
  /** The same, bounded by `timeoutMs`, failing when the recorder does not catch up in time. */
  drain(environment: Environment, timeoutMs: number): Promise<void>;
}

/** The public Event records: the distributor's reads, and the log the webhook dispatcher delivers from. */
export class EventsService implements EventsApi, PublicEventLog {
  constructor(private readonly ports: EventsPorts) {}

  async listEvents(
    caller: Caller,
    filter: EventListFilter,
    page: FindPage,
  ): Promise<FindResult<PublicEvent>> {
    await this.ports.settle(caller.environment);
    const equality: Record<string, string> = { distributorId: caller.distributorId };
    if (filter.eventName) equality.eventName = filter.eventName;
    if (filter.userId) equality.userId = filter.userId;
    const result = await this.ports
      .readStore(caller.environment)
      .find<EventRecord>(EVENT_RECORDS, { ...page, filter: equality });
    return { items: result.items.map(renderEvent), hasMore: result.hasMore };
  }

  async getEvent(caller: Caller, eventId: string): Promise<PublicEvent> {
    await this.ports.settle(caller.environment);
    const record = await this.findEvent(caller.environment, eventId);
    if (!record || record.distributorId !== caller.distributorId) throw notFound('Event', eventId);
    return renderEvent(record);
  }

  recordedFrom(environment: Environment, domainEventId: string): Promise<EventRecord[] | null> {
    return findRecordedEvents(this.ports.readStore(environment), domainEventId);
  }

  findEvent(environment: Environment, eventId: string): Promise<EventRecord | null> {
    return this.ports.readStore(environment).get<EventRecord>(EVENT_RECORDS, eventId);
  }

  caughtUp(environment: Environment, timeoutMs: number): Promise<void> {
    return this.ports.drain(environment, timeoutMs);
  }
}
