import { Body, Controller, HttpCode, Inject, Param, Post } from '@nestjs/common';
import { ApiBody, ApiOperation, ApiParam, ApiResponse, ApiTags } from '@nestjs/swagger';
import { ApiError, ApiErrors, Caller, CurrentCaller, ResourceIdPipe, SandboxOnly } from '@cip/gateway/http';
import {
  KYC_SIMULATION_API,
  KycSimulationApi,
  SIMULATED_OUTCOMES,
  SimulatedOutcome,
} from '@cip/kyc/contract';
import { renderResource } from './kyc-resource';
import { KycResponse, SimulateKycDto } from './kyc.dto';

@ApiTags('Simulations')
@SandboxOnly()
@Controller('v1/simulate/kyc')
export class KycSimulationController {
  constructor(@Inject(KYC_SIMULATION_API) private readonly kycs: KycSimulationApi) {}

  @Post(':kycId/:outcome')
  @HttpCode(200)
  @ApiOperation({
    operationId: 'simulateKycOutcome',
    summary: "Simulate the provider's outcome of a KYC (sandbox only)",
    description:
      'complete: the user submits the form with sample data; approve: review verifies it (activating the user, or ' +
      'setting the shipping address); decline (optional declinedCode); fail; expire (the link dies now). A pending ' +
      'KYC is completed before it is approved or declined: approve or decline on a pending one is 409 ' +
      'invalid_state_transition. The body is optional (only decline reads it).',
  })
  @ApiParam({ name: 'outcome', enum: SIMULATED_OUTCOMES })
  @ApiBody({ type: SimulateKycDto, required: false })
  @ApiResponse({ status: 200, type: KycResponse })
  @ApiErrors('validation_error', 'invalid_state_transition')
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
