import type {
  DomainEventRef,
  EventListFilter,
  EventRecord,
  EventsApi,
  PublicEventLog,
} from '@cip/events/contract';
import { EVENT_RECORDS, findRecordedEvents, renderEvent } from '@cip/events/read-models';
import { Caller, Environment, FindPage, FindResult, PublicEvent } from '@cip/shared/contracts';
import { forTenant, ReadStore } from '@cip/shared/read-store';

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
    const result = await forTenant(this.ports.readStore, caller).find<EventRecord>(
      EVENT_RECORDS,
      { eventName: filter.eventName || undefined, userId: filter.userId || undefined },
      page,
    );
    return { items: result.items.map(renderEvent), hasMore: result.hasMore };
  }

  async getEvent(caller: Caller, eventId: string): Promise<PublicEvent> {
    await this.ports.settle(caller.environment);
    return renderEvent(
      await forTenant(this.ports.readStore, caller).getOwned<EventRecord>(EVENT_RECORDS, eventId, 'Event'),
    );
  }

  recordedFrom(environment: Environment, domainEvent: DomainEventRef): Promise<EventRecord[]> {
    return findRecordedEvents(this.ports.readStore(environment), domainEvent);
  }

  findEvent(environment: Environment, eventId: string): Promise<EventRecord | null> {
    return this.ports.readStore(environment).get<EventRecord>(EVENT_RECORDS, eventId);
  }

  caughtUp(environment: Environment, timeoutMs: number): Promise<void> {
    return this.ports.drain(environment, timeoutMs);
  }
}
