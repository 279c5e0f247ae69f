import { Controller, Get, Inject, Param, Query } from '@nestjs/common';
import { ApiOkResponse, ApiOperation, ApiProperty, ApiPropertyOptional, ApiTags } from '@nestjs/swagger';
import { IsIn, IsOptional, Matches } from 'class-validator';
import { PUBLIC_EVENT_NAMES, PublicEvent } from '@cip/shared/contracts';
import { EVENTS_API, EventsApi } from '@cip/events/contract';
import {
  ApiPageResponse,
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

export class EventResponse {
  @ApiProperty({ example: '0b6f3c7e-2f4d-4d8a-9a51-3c1f0e6b7a21', description: 'The Event id, a uuid' })
  id: string;
  @ApiProperty({ example: '0b6f3c7e-2f4d-4d8a-9a51-3c1f0e6b7a21', description: 'Same as id' })
  eventId: string;
  @ApiProperty({ enum: PUBLIC_EVENT_NAMES }) eventName: string;
  @ApiProperty({ description: 'Id of the related object (user, KYC, wallet, subscription, ...)' })
  eventTargetId: string;
  @ApiPropertyOptional({ description: 'Absent on webhook-subscription Events' }) userId?: string;
  @ApiProperty({
    type: 'object',
    additionalProperties: true,
    description: 'Snapshot of the changed entity after the occurrence, plus the Event-specific fields',
  })
  data: Record<string, unknown>;
  @ApiProperty() createdAt: string;
  @ApiProperty() updatedAt: string;
}

@ApiTags('Events')
@Controller('v1/events')
export class EventsController {
  constructor(@Inject(EVENTS_API) private readonly events: EventsApi) {}

  @Get()
  @ApiOperation({
    operationId: 'listEvents',
    summary: 'List Events',
    description:
      'Every occurrence creates an Event: {eventId, eventName, eventTargetId, userId, data (snapshot of the entity)}.',
  })
  @ApiPageResponse(EventResponse)
  async list(@CurrentCaller() caller: Caller, @Query() query: EventListQueryDto) {
    const result = await this.events.listEvents(
      caller,
      { eventName: query.eventName, userId: query.userId },
      toPageQuery(query),
    );
    return toPage(query, result, (event: PublicEvent) => event);
  }

  @Get(':eventId')
  @ApiOperation({
    operationId: 'getEvent',
    summary: 'Retrieve an Event',
    description: 'The Event exactly as webhooks receive it.',
  })
  @ApiOkResponse({ type: EventResponse })
  async get(@CurrentCaller() caller: Caller, @Param('eventId', new ResourceIdPipe(null)) eventId: string) {
    return this.events.getEvent(caller, eventId);
  }
}
