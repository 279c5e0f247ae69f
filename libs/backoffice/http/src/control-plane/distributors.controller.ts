import { Body, Controller, Get, HttpCode, Inject, Param, Patch, PipeTransform, Post } from '@nestjs/common';
import { ApiOperation, ApiResponse, ApiTags } from '@nestjs/swagger';
import { AUDIT_TRAIL, type AuditTrail, type StaffPrincipal } from '@cip/backoffice/contract';
import { CONTROL_PLANE_API, type ControlPlaneApi } from '@cip/distributors/contract';
import { ApiError, ApiErrors, ResourceIdPipe } from '@cip/gateway/http';
import { DomainError } from '@cip/shared/contracts';
import { audited, auditedControl } from '../access/audited';
import { CurrentStaff, StaffAccess } from '../access/staff-access';
import { ApiCursorPageResponse, ReasonDto } from '../common/operator-dto';
import {
  ApiKeyResponse,
  ConfigureProgramDto,
  CreateDistributorDto,
  DistributorResponse,
  DistributorSummaryResponse,
  IssueApiKeyDto,
  IssuedApiKeyResponse,
} from './distributors.dto';
import { programChangesOf } from './program-changes';

/** A key id (`key-` and 20 hex digits): anything else is simply not found. */
class KeyIdPipe implements PipeTransform<string, string> {
  transform(value: string): string {
    if (!/^key-[0-9a-f]{20}$/.test(value))
      throw new DomainError('not_found', `No API key ${value.slice(0, 80)}`);
    return value;
  }
}

const distributorTarget = (id: string) => ({ type: 'distributor', id });

@ApiTags('Control plane')
@Controller('operator/v1')
export class DistributorsController {
  constructor(
    @Inject(CONTROL_PLANE_API) private readonly controlPlane: ControlPlaneApi,
    @Inject(AUDIT_TRAIL) private readonly trail: AuditTrail,
  ) {}

  @Get('distributors')
  @StaffAccess('read')
  @ApiOperation({
    operationId: 'listDistributors',
    summary: 'Distributors and their programs',
    description: 'Oldest first, on one page.',
  })
  @ApiCursorPageResponse(DistributorSummaryResponse)
  async list() {
    return { data: await this.controlPlane.listDistributors(), nextCursor: null };
  }

  @Get('distributors/:distributorId')
  @StaffAccess('read')
  @ApiOperation({
    operationId: 'getDistributor',
    summary: 'A distributor',
    description:
      'Its program with the settings in force (its own or the defaults) and its keys (never the key itself).',
  })
  @ApiResponse({ status: 200, type: DistributorResponse })
  get(@Param('distributorId', new ResourceIdPipe('dst')) distributorId: string) {
    return this.controlPlane.getDistributor(distributorId);
  }

  @Post('distributors')
  @HttpCode(201)
  @StaffAccess('admin')
  @ApiOperation({
    operationId: 'createDistributor',
    summary: 'Create a distributor',
    description:
      'Its program starts from the defaults (countries: the EEA, the UK and Switzerland; no b2b, prepaid or KYC ' +
      'import) with the settings given, in the texts of `cli distributors configure`.',
  })
  @ApiResponse({ status: 201, type: DistributorResponse })
  async create(@CurrentStaff() principal: StaffPrincipal, @Body() body: CreateDistributorDto) {
    const { name, reason } = body;
    const entry = { action: 'distributor.create', environment: null, reason };
    try {
      const created = await this.controlPlane.createDistributor({ name, program: programChangesOf(body) });
      await this.trail.record(principal, { ...entry, target: distributorTarget(created.distributorId) });
      return created;
    } catch (error) {
      if (error instanceof DomainError || error instanceof ApiError) {
        await this.trail.record(principal, {
          ...entry,
          target: distributorTarget('new'),
          outcome: 'refused',
          errorCode: error.code,
        });
      }
      throw error;
    }
  }

  @Patch('distributors/:distributorId/program')
  @StaffAccess('admin')
  @ApiOperation({
    operationId: 'configureProgram',
    summary: "Change a distributor's program",
    description:
      'The settings of `cli distributors configure`, in the same texts (`feeFx: "2%"`, `feeAtm: "2.50USD"`, ' +
      '`threeDsDeadline: "3m"`, `fxRates: {"EUR": "1.0856", "JPY": null}`); settings not given keep their value. ' +
      'Applies to the next /v1 call and authorization, without a restart.',
  })
  @ApiResponse({ status: 200, type: DistributorResponse })
  configure(
    @CurrentStaff() principal: StaffPrincipal,
    @Param('distributorId', new ResourceIdPipe('dst')) distributorId: string,
    @Body() body: ConfigureProgramDto,
  ) {
    return audited(
      this.trail,
      principal,
      {
        action: 'program.configure',
        environment: null,
        target: distributorTarget(distributorId),
        reason: body.reason,
      },
      async () => this.controlPlane.configureProgram(distributorId, programChangesOf(body)),
    );
  }

  @Post('distributors/:distributorId/keys')
  @HttpCode(201)
  @StaffAccess('admin')
  @ApiOperation({
    operationId: 'issueApiKey',
    summary: 'Issue an API key',
    description: 'The key is in this answer once, never again: only its hash is kept.',
  })
  @ApiResponse({ status: 201, type: IssuedApiKeyResponse })
  issueKey(
    @CurrentStaff() principal: StaffPrincipal,
    @Param('distributorId', new ResourceIdPipe('dst')) distributorId: string,
    @Body() body: IssueApiKeyDto,
  ) {
    return audited(
      this.trail,
      principal,
      {
        action: 'key.issue',
        environment: body.environment,
        target: distributorTarget(distributorId),
        reason: body.reason,
      },
      () => this.controlPlane.issueKey(distributorId, body.environment, body.label ?? null),
    );
  }

  @Post('keys/:keyId/roll')
  @HttpCode(200)
  @StaffAccess('admin')
  @ApiOperation({
    operationId: 'rollApiKey',
    summary: 'Roll an API key',
    description:
      'A replacement (same environment and label) shown in this answer once; the old key stops authenticating at once.',
  })
  @ApiResponse({ status: 200, type: IssuedApiKeyResponse })
  @ApiErrors('invalid_state_transition')
  rollKey(
    @CurrentStaff() principal: StaffPrincipal,
    @Param('keyId', new KeyIdPipe()) keyId: string,
    @Body() body: ReasonDto,
  ) {
    return auditedControl(
      this.trail,
      principal,
      { type: 'key', id: keyId },
      { action: 'key.roll', reason: body.reason },
      () => this.controlPlane.rollKey(keyId),
    );
  }

  @Post('keys/:keyId/revoke')
  @HttpCode(200)
  @StaffAccess('admin')
  @ApiOperation({
    operationId: 'revokeApiKey',
    summary: 'Revoke an API key',
    description: 'It stops authenticating at once.',
  })
  @ApiResponse({ status: 200, type: ApiKeyResponse })
  @ApiErrors('invalid_state_transition')
  revokeKey(
    @CurrentStaff() principal: StaffPrincipal,
    @Param('keyId', new KeyIdPipe()) keyId: string,
    @Body() body: ReasonDto,
  ) {
    return auditedControl(
      this.trail,
      principal,
      { type: 'key', id: keyId },
      { action: 'key.revoke', reason: body.reason },
      () => this.controlPlane.revokeKey(keyId),
    );
  }
}
