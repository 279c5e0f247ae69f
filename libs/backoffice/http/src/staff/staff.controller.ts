import { Body, Controller, Get, HttpCode, Inject, Param, Post, Query } from '@nestjs/common';
import { ApiOperation, ApiResponse, ApiTags } from '@nestjs/swagger';
import { AUDIT_TRAIL, type AuditTrail, type StaffPrincipal } from '@cip/backoffice/contract';
import { AuditTrailService, StaffService } from '@cip/backoffice/service';
import { ApiErrors, ResourceIdPipe } from '@cip/gateway/http';
import { auditedControl } from '../access/audited';
import { CurrentStaff, StaffAccess } from '../access/staff-access';
import { ApiCursorPageResponse, DEFAULT_PAGE_LIMIT, ReasonDto } from '../common/operator-dto';
import {
  AuditEntryResponse,
  AuditQueryDto,
  ChangeRoleDto,
  InvitedStaffResponse,
  InviteStaffDto,
  StaffResponse,
} from './staff.dto';

const staffTarget = (id: string) => ({ type: 'staff', id });

@ApiTags('Staff')
@Controller('operator/v1/staff')
export class StaffController {
  constructor(
    @Inject(StaffService) private readonly staff: StaffService,
    @Inject(AUDIT_TRAIL) private readonly trail: AuditTrail,
  ) {}

  @Get()
  @StaffAccess('admin')
  @ApiOperation({
    operationId: 'listStaff',
    summary: 'Staff members',
    description: 'Oldest first, on one page.',
  })
  @ApiCursorPageResponse(StaffResponse)
  async list() {
    return { data: await this.staff.list(), nextCursor: null };
  }

  @Post()
  @HttpCode(201)
  @StaffAccess('admin')
  @ApiOperation({
    operationId: 'inviteStaff',
    summary: 'Invite a staff member',
    description:
      'Creates the account (`invited`) and a one-time invitation link (72 hours) to send to the person, who ' +
      'sets a password and an authenticator there. One account per email (`409 invalid_state_transition`).',
  })
  @ApiResponse({ status: 201, type: InvitedStaffResponse })
  @ApiErrors('invalid_state_transition')
  invite(@CurrentStaff() principal: StaffPrincipal, @Body() body: InviteStaffDto) {
    return auditedControl(this.trail, principal, staffTarget(body.email), { action: 'staff.invite' }, () =>
      this.staff.invite(body, principal.staffId),
    );
  }

  @Post(':staffId/role')
  @HttpCode(200)
  @StaffAccess('admin')
  @ApiOperation({
    operationId: 'changeStaffRole',
    summary: "Change a staff member's role",
    description: 'Takes effect on their next request; the same role again changes nothing.',
  })
  @ApiResponse({ status: 200, type: StaffResponse })
  @ApiErrors('invalid_state_transition')
  changeRole(
    @CurrentStaff() principal: StaffPrincipal,
    @Param('staffId', new ResourceIdPipe('stf')) staffId: string,
    @Body() body: ChangeRoleDto,
  ) {
    return auditedControl(
      this.trail,
      principal,
      staffTarget(staffId),
      { action: 'staff.changeRole', reason: body.reason },
      () => this.staff.changeRole(staffId, body.role, body.reason, principal),
    );
  }

  @Post(':staffId/disable')
  @HttpCode(200)
  @StaffAccess('admin')
  @ApiOperation({
    operationId: 'disableStaff',
    summary: 'Disable a staff member',
    description: 'Every session of theirs ends; they cannot sign in any more.',
  })
  @ApiResponse({ status: 200, type: StaffResponse })
  @ApiErrors('invalid_state_transition')
  disable(
    @CurrentStaff() principal: StaffPrincipal,
    @Param('staffId', new ResourceIdPipe('stf')) staffId: string,
    @Body() body: ReasonDto,
  ) {
    return auditedControl(
      this.trail,
      principal,
      staffTarget(staffId),
      { action: 'staff.disable', reason: body.reason },
      () => this.staff.disable(staffId, body.reason, principal),
    );
  }

  @Post(':staffId/unlock')
  @HttpCode(200)
  @StaffAccess('admin')
  @ApiOperation({
    operationId: 'unlockStaff',
    summary: 'Unlock a staff member',
    description: 'Ends a lockout after failed sign-ins (and resets the count).',
  })
  @ApiResponse({ status: 200, type: StaffResponse })
  @ApiErrors('invalid_state_transition')
  unlock(
    @CurrentStaff() principal: StaffPrincipal,
    @Param('staffId', new ResourceIdPipe('stf')) staffId: string,
    @Body() body: ReasonDto,
  ) {
    return auditedControl(
      this.trail,
      principal,
      staffTarget(staffId),
      { action: 'staff.unlock', reason: body.reason },
      () => this.staff.unlock(staffId, body.reason, principal),
    );
  }
}

@ApiTags('Audit')
@Controller('operator/v1/audit')
export class AuditController {
  constructor(@Inject(AuditTrailService) private readonly audit: AuditTrailService) {}

  @Get()
  @StaffAccess('read')
  @ApiOperation({
    operationId: 'listAudit',
    summary: 'The audit trail',
    description:
      'Every staff action, whatever its outcome, newest first. Filters: `staffId`, `targetId`, `userId`, `action`.',
  })
  @ApiCursorPageResponse(AuditEntryResponse)
  list(@Query() query: AuditQueryDto) {
    const { limit, cursor, ...filter } = query;
    return this.audit.list(filter, { limit: limit ?? DEFAULT_PAGE_LIMIT, cursor });
  }
}
