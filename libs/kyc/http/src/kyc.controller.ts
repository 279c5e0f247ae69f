import { Body, Controller, Get, HttpCode, Inject, Param, Post, Put, Query, Res } from '@nestjs/common';
import { ApiOperation, ApiResponse, ApiTags } from '@nestjs/swagger';
import {
  ApiError,
  ApiErrors,
  ApiPageResponse,
  Caller,
  CurrentCaller,
  ResourceIdPipe,
  toPage,
  toPageQuery,
} from '@cip/gateway/http';
import { KYC_API, KycApi } from '@cip/kyc/contract';
import type { FastifyReply } from 'fastify';
import { renderResource } from './kyc-resource';
import { ImportKycDto, KycListQueryDto, KycResponse, StartKycDto } from './kyc.dto';

@ApiTags('KYC')
@Controller('v1/kycs')
export class KycController {
  constructor(@Inject(KYC_API) private readonly kycs: KycApi) {}

  @Put()
  @HttpCode(201)
  @ApiOperation({
    operationId: 'startKyc',
    summary: 'Start a hosted KYC',
    description:
      'Types full, light, shipping and rfi (with rfiSubtype). Emits kyc.created and kyc.pending; send the user to ' +
      'access.url (valid 14 days). Starting again while a KYC of the same type is pending revokes that one (kyc.revoked).',
  })
  @ApiResponse({ status: 201, type: KycResponse })
  @ApiErrors('not_found', 'invalid_state_transition')
  async start(
    @CurrentCaller() caller: Caller,
    @Body() body: StartKycDto,
    @Res({ passthrough: true }) reply: FastifyReply,
  ) {
    if (body.type !== 'rfi' && body.rfiSubtype) {
      throw new ApiError('validation_error', 'rfiSubtype is only for type rfi', [
        { field: 'rfiSubtype', message: 'allowed only when type is rfi' },
      ]);
    }
    if (body.type === 'rfi' && !body.rfiSubtype) {
      throw new ApiError('validation_error', 'An rfi KYC needs an rfiSubtype', [
        { field: 'rfiSubtype', message: 'required when type is rfi' },
      ]);
    }
    const started = await this.kycs.startHostedKyc(caller, body);
    reply.header('location', `/v1/kycs/${started.kyc.id}`);
    return renderResource(started);
  }

  @Post()
  @HttpCode(201)
  @ApiOperation({
    operationId: 'importKyc',
    summary: 'Import a pre-verified KYC',
    description:
      'Shared KYC: identity data verified elsewhere. Needs the contract addendum (403 kyc_import_not_enabled otherwise). ' +
      'Emits kyc.created and kyc.pending; review then verifies or declines it.',
  })
  @ApiResponse({ status: 201, type: KycResponse })
  @ApiErrors('kyc_import_not_enabled', 'not_found', 'invalid_state_transition')
  async import(
    @CurrentCaller() caller: Caller,
    @Body() body: ImportKycDto,
    @Res({ passthrough: true }) reply: FastifyReply,
  ) {
    const { userId, type: _type, address, ...identity } = body;
    const imported = await this.kycs.importKyc(caller, {
      userId,
      identity: {
        ...identity,
        ...(address ? { address: { ...address, country: address.country.toUpperCase() } } : {}),
      },
    });
    reply.header('location', `/v1/kycs/${imported.kyc.id}`);
    return renderResource(imported);
  }

  @Get()
  @ApiOperation({
    operationId: 'listKycs',
    summary: 'List KYCs',
    description: 'Filters: userId, status, type.',
  })
  @ApiPageResponse(KycResponse)
  async list(@CurrentCaller() caller: Caller, @Query() query: KycListQueryDto) {
    const result = await this.kycs.listKycs(
      caller,
      { userId: query.userId, status: query.status, type: query.type },
      toPageQuery(query),
    );
    return toPage(query, result, renderResource);
  }

  @Get(':kycId')
  @ApiOperation({
    operationId: 'getKyc',
    summary: 'Retrieve a KYC',
    description: 'Includes access.url while the link works.',
  })
  @ApiResponse({ status: 200, type: KycResponse })
  async get(@CurrentCaller() caller: Caller, @Param('kycId', new ResourceIdPipe('kyc')) kycId: string) {
    return renderResource(await this.kycs.getKyc(caller, kycId));
  }

  @Post(':kycId/resume')
  @HttpCode(200)
  @ApiOperation({
    operationId: 'resumeKyc',
    summary: 'Resume an expired KYC',
    description:
      'An expired KYC gets a new link (the old one stops working) and is pending again: 200. A KYC the user already ' +
      'completed (completed or verified) gives way to a new KYC of the same type: 201 with the new KYC. Anything ' +
      'else, a pending KYC included, is refused with 409 kyc_resume_not_allowed_error.',
  })
  @ApiResponse({ status: 200, type: KycResponse })
  @ApiResponse({ status: 201, type: KycResponse })
  @ApiErrors('kyc_resume_not_allowed_error')
  async resume(
    @CurrentCaller() caller: Caller,
    @Param('kycId', new ResourceIdPipe('kyc')) kycId: string,
    @Res({ passthrough: true }) reply: FastifyReply,
  ) {
    const resumed = await this.kycs.resumeKyc(caller, kycId);
    if (resumed.created) reply.code(201).header('location', `/v1/kycs/${resumed.kyc.id}`);
    return renderResource(resumed);
  }
}
