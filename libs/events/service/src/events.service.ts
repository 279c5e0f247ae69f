import { Environment, notFound, PublicEvent } from '@cip/shared/contracts';
import type { FindQuery, FindResult, ReadStore } from '@cip/shared/read-store';
import { EVENT_RECORDS, EventRecord, renderEvent } from '@cip/events/read-models';

export interface EventsCaller {
  distributorId: string;
  environment: Environment;
}

export interface EventListFilter {
  eventName?: string;
  userId?: string;
}

export const PUBLIC_EVENTS_GROUP = 'public-events';

/** Reads of the public Event records (GET /v1/events, GET /v1/events/{eventId}). */
export class EventsService {
  constructor(
    private readonly readStore: (environment: Environment) => ReadStore,
    private readonly settle: (environment: Environment) => Promise<void>,
  ) {}

  async list(
    caller: EventsCaller,
    filter: EventListFilter,
    page: Omit<FindQuery, 'filter'>,
  ): Promise<FindResult<PublicEvent>> {
    await this.settle(caller.environment);
    const equality: Record<string, string> = { distributorId: caller.distributorId };
    if (filter.eventName) equality.eventName = filter.eventName;
    if (filter.userId) equality.userId = filter.userId;
    const result = await this.readStore(caller.environment).find<EventRecord>(EVENT_RECORDS, { ...page, filter: equality });
    return { items: result.items.map(renderEvent), hasMore: result.hasMore };
  }

  async get(caller: EventsCaller, eventId: string): Promise<PublicEvent> {
    await this.settle(caller.environment);
    const record = await this.readStore(caller.environment).get<EventRecord>(EVENT_RECORDS, eventId);
    if (!record || record.distributorId !== caller.distributorId) throw notFound('Event', eventId);
    return renderEvent(record);
  }
}
