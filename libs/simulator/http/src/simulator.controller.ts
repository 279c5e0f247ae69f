import { Body, Controller, HttpCode, Inject, Post } from '@nestjs/common';
import { ApiOperation, ApiResponse, ApiTags } from '@nestjs/swagger';
import { renderAuthorization } from '@cip/authorizations/contract';
import { ApiErrors, Caller, CurrentCaller, SandboxOnly } from '@cip/gateway/http';
import { SIMULATOR_API, type SimulatedAuthorizationResult, type SimulatorApi } from '@cip/simulator/contract';
import {
  SimulateAuthorizationDto,
  SimulateClearingDto,
  SimulatedAuthorizationResponse,
  SimulatedClearingResponse,
  SimulateRefundDto,
  SimulateReversalDto,
} from './simulator.dto';
import {
  SimulatedDirectoryServerController,
  ThreeDsSimulationController,
} from './three-ds-simulation.controller';

const OVER_THE_LINK =
  'The sandbox card network builds the ISO 8583 message an acquirer would send and puts it on the link to the ' +
  'issuer (the same path as production traffic). If the issuer does not answer within the stand-in timeout ' +
  '(SIMULATOR_STAND_IN_TIMEOUT_MS, 3 s by default) or is not connected, the network stands in: it approves a ' +
  'payment up to the stand-in limit on an unexpired card and declines anything else (network.advice = ' +
  'stand_in), then forwards an 0120 advice until the issuer acknowledges it. The answer holds the issuer\u2019s ' +
  'authorization record (decision, declineReasonCode, amounts in USD) found by network reference, or null ' +
  'when the issuer has not recorded it yet, and what travelled on the link (no card data).';

const render = (result: SimulatedAuthorizationResult) => ({
  authorization: result.authorization ? renderAuthorization(result.authorization) : null,
  network: result.network,
});

@ApiTags('Simulations')
@SandboxOnly()
@Controller('v1/simulate/authorization')
export class AuthorizationSimulationController {
  constructor(@Inject(SIMULATOR_API) private readonly simulator: SimulatorApi) {}

  @Post()
  @HttpCode(200)
  @ApiOperation({
    operationId: 'simulateAuthorization',
    summary: 'Simulate a card payment at a merchant (sandbox only)',
    description:
      `Sends an 0100 for the card (processing code 00). ${OVER_THE_LINK} The CVV2 is the card\u2019s own unless ` +
      'given (a wrong one tests declines); a pin is sent as an encrypted PIN block. A 3-D Secure authentication ' +
      '(`threeDs`, or the `cardAuthenticationId` of a `/v1/simulate/3ds` challenge whose RReq was Y) travels in ' +
      'DE-048 (subelement 43 the authentication value, 42 the ECI) on an e-commerce payment; the issuer verifies ' +
      'it (this card, amount, currency and merchant, unused, at most 30 days old) and records ' +
      '`authorization.threeDs`; one that does not verify is declined (`declineReasonCode` other, network ' +
      'response code 63). 404 for a cardAuthenticationId that is not the caller\u2019s, 400 for another card\u2019s, ' +
      '409 invalid_state_transition while it has no authentication value.',
  })
  @ApiResponse({ status: 200, type: SimulatedAuthorizationResponse })
  @ApiErrors('not_found', 'invalid_state_transition')
  async authorize(@CurrentCaller() caller: Caller, @Body() body: SimulateAuthorizationDto) {
    return render(await this.simulator.simulateAuthorization(caller, body));
  }

  @Post('refund')
  @HttpCode(200)
  @ApiOperation({
    operationId: 'simulateAuthorizationRefund',
    summary: 'Simulate a merchant refund to the card (sandbox only)',
    description: `Sends an 0100 with processing code 20 (refund: a credit to the wallet), naming the refunded payment when \`authorizationId\` is given (404 when the network never carried it, 400 when it is another card's, 409 invalid_state_transition when it was not an approved payment). The refund is credited, then cleared; it is rejected (network 61, nothing credited) when the wallet cannot take the credit (its balance would pass the 1,000,000,000 bound), and declined (network 13) when it gives back more than the named payment cleared and was not refunded yet. ${OVER_THE_LINK}`,
  })
  @ApiResponse({ status: 200, type: SimulatedAuthorizationResponse })
  @ApiErrors('not_found', 'invalid_state_transition')
  async refund(@CurrentCaller() caller: Caller, @Body() body: SimulateRefundDto) {
    return render(await this.simulator.simulateRefund(caller, body));
  }

  @Post('reversal')
  @HttpCode(200)
  @ApiOperation({
    operationId: 'simulateAuthorizationReversal',
    summary: 'Simulate the acquirer reversing an authorization (sandbox only)',
    description:
      'Sends an 0400 for an authorization the simulator carried: full without amount, partial with one (DE-095 ' +
      'holds the new total). If the issuer does not answer in time, the acquirer\u2019s 0420 reversal advice ' +
      'follows and is repeated until acknowledged (network.advice = reversal_advice). 404 for an authorization ' +
      'that is not the caller\u2019s or that the simulator did not carry; 400 for more than what is left. 409 ' +
      'invalid_state_transition, saying why, when nothing could be reversed: declined, already fully reversed ' +
      '(by the simulator\u2019s own reversals), or when the issuer answers the 0400 that the authorization holds ' +
      'nothing any more (response code 12: cleared, reversed, expired; the message tells which); nothing ' +
      'changes and the simulator books no reversal. An 0420 advice is always acknowledged by the issuer (it ' +
      'changes nothing when nothing is held). Concurrent reversals of one authorization are sent one after ' +
      'the other.',
  })
  @ApiResponse({ status: 200, type: SimulatedAuthorizationResponse })
  @ApiErrors('not_found', 'invalid_state_transition')
  async reverse(@CurrentCaller() caller: Caller, @Body() body: SimulateReversalDto) {
    return render(await this.simulator.simulateReversal(caller, body));
  }

  @Post('clearing')
  @HttpCode(200)
  @ApiOperation({
    operationId: 'simulateAuthorizationClearing',
    summary: 'Simulate a clearing presentment (sandbox only)',
    description:
      'Clearing is a batch file, not an online message (docs/iso8583.md). With an authorizationId: a ' +
      'presentment against it (its amount by default; less is partial, several calls are multiple partial ' +
      'presentments, more is an over-presentment; cardId, currency and merchant come from it: given, they are ignored). ' +
      'Without: a force post, which needs cardId, amount and merchant. ' +
      'The sandbox cuts a clearing file per call, stores it and delivers it to the issuer\u2019s clearing ' +
      'importer, which applies each line at once (presentments clear, force posts debit the card\u2019s wallet; ' +
      'importing a file again changes nothing). Before cutting the file the network asks the issuer whether the ' +
      'authorization can still take a presentment: 409 invalid_state_transition saying why when it cannot (cleared ' +
      'already, reversed, declined, a refund, expired with nothing left to clear), and no file is cut. A ' +
      'presentment beyond what may still clear (the authorized amount and the program\u2019s tolerance) is a real ' +
      'over-presentment: its line is left as an operator exception and the call still answers 200 (a file is a ' +
      'batch: its importer cannot answer per line); read the authorization to see the outcome. delivered is ' +
      'false only where no importer runs (the file is then stored and nothing is cleared). ' +
      'The file names the card by id and last four digits, never by PAN.',
  })
  @ApiResponse({ status: 200, type: SimulatedClearingResponse })
  @ApiErrors('not_found', 'invalid_state_transition')
  async clear(@CurrentCaller() caller: Caller, @Body() body: SimulateClearingDto) {
    return this.simulator.simulateClearing(caller, body);
  }
}

/** The simulator's controllers, mounted by apps that provide SIMULATOR_API. */
export const SIMULATOR_CONTROLLERS = [
  AuthorizationSimulationController,
  ThreeDsSimulationController,
  SimulatedDirectoryServerController,
];
