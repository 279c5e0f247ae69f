import { Controller, Get, Inject } from '@nestjs/common';
import { ApiOperation, ApiProperty, ApiResponse, ApiTags } from '@nestjs/swagger';
import { SystemHealthService } from '@cip/backoffice/service';
import { ENVIRONMENTS } from '@cip/shared/contracts';
import { StaffAccess } from '../access/staff-access';

class ProcessEntry {
  @ApiProperty({
    description: 'The app it runs: platform (one process), a service, gateway, dashboard, relay',
    example: 'users',
  })
  process: string;
  @ApiProperty({ description: 'process@host:pid', example: 'users@cip-users-7d9f:1' }) instance: string;
  @ApiProperty() host: string;
  @ApiProperty() pid: number;
  @ApiProperty({ format: 'date-time' }) startedAt: string;
  @ApiProperty({ format: 'date-time', description: 'Its last report (every 5 s)' }) reportedAt: string;
  @ApiProperty({ description: 'Whether its last report is under 15 s old' }) reporting: boolean;
}

class ConsumerLag {
  @ApiProperty({ example: 'sandbox' }) scope: string;
  @ApiProperty({ example: 'users.projection' }) group: string;
  @ApiProperty({ description: 'Events in the log not yet processed by the group' }) lagEvents: number;
  @ApiProperty({ description: 'The process running the group', example: 'users' }) process: string;
}

class ServerErrorEntry {
  @ApiProperty({ format: 'date-time' }) at: string;
  @ApiProperty() method: string;
  @ApiProperty({ description: 'The route template', example: '/v1/users/:userId' }) route: string;
  @ApiProperty() status: number;
  @ApiProperty() requestId: string;
}

class ServerErrors {
  @ApiProperty({ description: '5xx answers of /v1 in the last hour' }) lastHour: number;
  @ApiProperty({ type: [ServerErrorEntry], description: 'The last ten, newest first' })
  last: ServerErrorEntry[];
}

class WebhookBacklog {
  @ApiProperty({ enum: ENVIRONMENTS }) environment: string;
  @ApiProperty({ description: 'Deliveries queued or waiting for a retry' }) pending: number;
}

export class SystemHealthResponse {
  @ApiProperty({ format: 'date-time' }) at: string;
  @ApiProperty({ type: [ProcessEntry], description: 'Every process of the platform seen in the last hour' })
  processes: ProcessEntry[];
  @ApiProperty({ type: [ConsumerLag] }) consumers: ConsumerLag[];
  @ApiProperty({ type: ServerErrors }) serverErrors: ServerErrors;
  @ApiProperty({ type: [WebhookBacklog] }) webhookBacklog: WebhookBacklog[];
}

@ApiTags('Health')
@Controller('operator/v1/health')
export class HealthController {
  constructor(@Inject(SystemHealthService) private readonly health: SystemHealthService) {}

  @Get()
  @StaffAccess('read')
  @ApiOperation({
    operationId: 'getSystemHealth',
    summary: 'System health',
    description:
      'From the reports every process of the platform writes every 5 s from its own metrics: the processes ' +
      "(and whether each still reports), consumer lag per group and scope, the /v1 API's 5xx answers of the " +
      'last hour (and the last ten), and the webhook delivery backlog per environment.',
  })
  @ApiResponse({ status: 200, type: SystemHealthResponse })
  get() {
    return this.health.health();
  }
}
