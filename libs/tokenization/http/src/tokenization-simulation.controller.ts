import { Body, Controller, HttpCode, Inject, Post } from '@nestjs/common';
import { ApiOperation, ApiResponse, ApiTags } from '@nestjs/swagger';
import { ApiErrors, Caller, CurrentCaller, SandboxOnly } from '@cip/gateway/http';
import {
  renderToken,
  TOKENIZATION_SIMULATION_API,
  TokenizationSimulationApi,
} from '@cip/tokenization/contract';
import { SimulateTokenizationDto, TokenResponse } from './tokenization.dto';

@ApiTags('Simulations')
@SandboxOnly()
@Controller('v1/simulate/tokenization')
export class TokenizationSimulationController {
  constructor(
    @Inject(TOKENIZATION_SIMULATION_API) private readonly tokenization: TokenizationSimulationApi,
  ) {}

  @Post()
  @HttpCode(200)
  @ApiOperation({
    operationId: 'simulateTokenization',
    summary: 'Simulate the token service: a user adds the card to a wallet by hand (sandbox only)',
    description:
      'Plays the token service of a user who typed the card into the wallet: with `activationMethod`, emits ' +
      "cardTokenization.deliverActivationCode (a six-digit `activationCode` and the user's `emailAddress`, or " +
      '`phone` for sms: deliver the code to the user), then, as if the user entered it, ' +
      'cardTokenization.activated. Without it (and for remoteCommercePrograms, which takes none), only ' +
      'cardTokenization.activated. Returns the active token. 409 card_not_active unless the card is active; 409 ' +
      'activation_method_unavailable when the user has no e-mail address or phone for the method; 400 ' +
      'validation_error for an activation method with remoteCommercePrograms.',
  })
  @ApiResponse({ status: 200, type: TokenResponse })
  @ApiErrors('not_found', 'card_not_active', 'activation_method_unavailable')
  async simulate(@CurrentCaller() caller: Caller, @Body() body: SimulateTokenizationDto) {
    return renderToken(
      await this.tokenization.simulateTokenization(caller, {
        cardId: body.cardId,
        digitalWalletName: body.digitalWalletName,
        activationMethod: body.activationMethod,
      }),
    );
  }
}
