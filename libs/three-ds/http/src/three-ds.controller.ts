import { Body, Controller, Get, HttpCode, Inject, Param, Post } from '@nestjs/common';
import { ApiOperation, ApiResponse, ApiTags } from '@nestjs/swagger';
import { ApiErrors, Caller, CurrentCaller, ResourceIdPipe } from '@cip/gateway/http';
import { renderCardAuthentication, THREE_DS_API, type ThreeDsApi } from '@cip/three-ds/contract';
import { CardAuthenticationAnswerDto, CardAuthenticationResponse } from './three-ds.dto';

const ANSWER =
  'The answer completes the 3-D Secure transaction: the access control server sends the result (an EMV ' +
  'RReq) to the 3DS server. Only a pending authentication can be answered, before its expiresAt (the ' +
  "program's 3DS deadline, 5 minutes by default): after it, 409 card_authentication_expired (it was refused, " +
  'fail closed); a second answer, 409 invalid_state_transition; neither changes anything. Another ' +
  "distributor's id is 404.";

@ApiTags('3D Secure')
@Controller('v1/3ds')
export class ThreeDsController {
  constructor(@Inject(THREE_DS_API) private readonly threeDs: ThreeDsApi) {}

  @Post('accept')
  @HttpCode(200)
  @ApiOperation({
    operationId: 'acceptCardAuthentication',
    summary: 'Approve a 3D Secure authentication request',
    description: `The cardholder approved it in your app: the 3DS server is told Y (authenticated), and cardAuthentication.accepted is sent. ${ANSWER}`,
  })
  @ApiResponse({ status: 200, type: CardAuthenticationResponse })
  @ApiErrors('not_found', 'card_authentication_expired', 'invalid_state_transition')
  async accept(@CurrentCaller() caller: Caller, @Body() body: CardAuthenticationAnswerDto) {
    return renderCardAuthentication(
      await this.threeDs.acceptCardAuthentication(caller, body.cardAuthenticationId),
    );
  }

  @Post('reject')
  @HttpCode(200)
  @ApiOperation({
    operationId: 'rejectCardAuthentication',
    summary: 'Decline a 3D Secure authentication request',
    description: `The cardholder declined it (or you do): the 3DS server is told N (reason 01), and cardAuthentication.rejected is sent. ${ANSWER}`,
  })
  @ApiResponse({ status: 200, type: CardAuthenticationResponse })
  @ApiErrors('not_found', 'card_authentication_expired', 'invalid_state_transition')
  async reject(@CurrentCaller() caller: Caller, @Body() body: CardAuthenticationAnswerDto) {
    return renderCardAuthentication(
      await this.threeDs.rejectCardAuthentication(caller, body.cardAuthenticationId),
    );
  }

  @Get(':cardAuthenticationId')
  @ApiOperation({
    operationId: 'getCardAuthentication',
    summary: 'Get a 3D Secure authentication request',
    description:
      'As cardAuthentication.created announced it, with its status (pending, accepted, rejected, expired) and, ' +
      'once decided, the result the 3DS server was sent. Never the card number: maskedPan only.',
  })
  @ApiResponse({ status: 200, type: CardAuthenticationResponse })
  @ApiErrors('not_found')
  async get(
    @CurrentCaller() caller: Caller,
    @Param('cardAuthenticationId', new ResourceIdPipe('tds')) cardAuthenticationId: string,
  ) {
    return renderCardAuthentication(await this.threeDs.getCardAuthentication(caller, cardAuthenticationId));
  }
}
