import { Controller, Get, Inject, Param, Query } from '@nestjs/common';
import { ApiOperation, ApiPropertyOptional, ApiTags } from '@nestjs/swagger';
import { IsIn, IsOptional, Matches } from 'class-validator';
import { PUBLIC_EVENT_NAMES, PublicEvent } from '@cip/shared/contracts';
import { EVENTS_API, EventsApi } from '@cip/events/contract';
import {
  ApiErrors,
  Caller,
  CurrentCaller,
  ListQueryDto,
  ResourceIdPipe,
  toPage,
  toPageQuery,
} from '@cip/gateway/http';

export class EventListQueryDto extends ListQueryDto {
  @ApiPropertyOptional({ enum: PUBLIC_EVENT_NAMES })
  @IsOptional()
  @IsIn(PUBLIC_EVENT_NAMES)
  eventName?: string;

  @ApiPropertyOptional({ example: 'usr-2b1f7a2e-6a3c-4f0e-9d55-0c6b1f1d2a10' })
  @IsOptional()
  @Matches(/^usr-[0-9a-f-]{36}$/, { message: 'userId must be a user id (usr-<uuid>)' })
  userId?: string;
}

@ApiTags('Events')
@Controller('v1/events')
export class EventsController {
  constructor(@Inject(EVENTS_API) private readonly events: EventsApi) {}

  @Get()
  @ApiOperation({
    summary: 'List Events',
    description:
      'Every occurrence creates an Event: {eventId, eventName, eventTargetId, userId, data (snapshot of the entity)}.',
  })
  @ApiErrors(400, 401, 429)
  async list(@CurrentCaller() caller: Caller, @Query() query: EventListQueryDto) {
    const result = await this.events.listEvents(
      caller,
      { eventName: query.eventName, userId: query.userId },
      toPageQuery(query),
    );
    return toPage(query, result, (event: PublicEvent) => event);
  }

  @Get(':eventId')
  @ApiOperation({ summary: 'Retrieve an Event' })
  @ApiErrors(401, 404, 429)
  async get(@CurrentCaller() caller: Caller, @Param('eventId', new ResourceIdPipe(null)) eventId: string) {
    return this.events.getEvent(caller, eventId);
  }
}
