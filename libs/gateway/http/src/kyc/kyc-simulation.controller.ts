import { Body, Controller, HttpCode, Inject, Param, Post } from '@nestjs/common';
import { ApiOperation, ApiParam, ApiResponse, ApiTags } from '@nestjs/swagger';
import { KYC_API, KycApi, SIMULATED_OUTCOMES, SimulatedOutcome } from '@cip/kyc/service';
import { ApiErrors } from '../common/api-errors.decorator';
import { Caller, CurrentCaller } from '../common/caller.decorator';
import { ResourceIdPipe } from '../common/resource-id.pipe';
import { SandboxOnly } from '../common/sandbox-only.guard';
import { ApiError } from '../pipeline/error-responses';
import { renderResource } from './kyc.controller';
import { KycResponse, SimulateKycDto } from './kyc.dto';

@ApiTags('Simulations')
@SandboxOnly()
@Controller('v1/simulate/kyc')
export class KycSimulationController {
  constructor(@Inject(KYC_API) private readonly kycs: KycApi) {}

  @Post(':kycId/:outcome')
  @HttpCode(200)
  @ApiOperation({
    summary: "Simulate the provider's outcome of a KYC (sandbox only)",
    description:
      'complete: the user submits the form with sample data; approve: review verifies it (activating the user, or ' +
      'setting the shipping address); decline (optional declinedCode); fail; expire (the link dies now).',
  })
  @ApiParam({ name: 'outcome', enum: SIMULATED_OUTCOMES })
  @ApiResponse({ status: 200, type: KycResponse })
  @ApiErrors(400, 401, 403, 404, 409, 429)
  async simulate(
    @CurrentCaller() caller: Caller,
    @Param('kycId', new ResourceIdPipe('kyc')) kycId: string,
    @Param('outcome') outcome: string,
    @Body() body: SimulateKycDto,
  ) {
    if (!SIMULATED_OUTCOMES.includes(outcome as SimulatedOutcome)) {
      throw new ApiError(
        'not_found',
        `No simulation "${outcome.slice(0, 40)}"; use one of ${SIMULATED_OUTCOMES.join(', ')}`,
      );
    }
    if (body.declinedCode && outcome !== 'decline') {
      throw new ApiError('validation_error', 'declinedCode is only for decline', [
        { field: 'declinedCode', message: 'allowed only with decline' },
      ]);
    }
    return renderResource(
      await this.kycs.simulate(caller, kycId, outcome as SimulatedOutcome, body.declinedCode),
    );
  }
}
