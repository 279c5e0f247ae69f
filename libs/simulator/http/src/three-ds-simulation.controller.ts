import { Body, Controller, Get, HttpCode, Inject, Param, Post } from '@nestjs/common';
import { ApiExcludeController, ApiOperation, ApiResponse, ApiTags } from '@nestjs/swagger';
import {
  ApiErrors,
  Caller,
  CurrentCaller,
  registerProtocolErrors,
  ResourceIdPipe,
  SandboxOnly,
} from '@cip/gateway/http';
import { DomainError, ENVIRONMENTS, type Environment } from '@cip/shared/contracts';
import {
  SIMULATED_DIRECTORY_SERVER_API,
  THREE_DS_SIMULATION_API,
  type SimulatedDirectoryServerApi,
  type ThreeDsSimulationApi,
} from '@cip/simulator/contract';
import {
  erroForRefusedRequest,
  renderCardAuthentication,
  type Erro,
  type RRes,
} from '@cip/three-ds/contract';
import {
  SimulatedThreeDsResponse,
  SimulateThreeDsDto,
  ThreeDsSimulationResponse,
} from './three-ds-simulation.dto';

@ApiTags('Simulations')
@SandboxOnly()
@Controller('v1/simulate/3ds')
export class ThreeDsSimulationController {
  constructor(@Inject(THREE_DS_SIMULATION_API) private readonly simulator: ThreeDsSimulationApi) {}

  @Post()
  @HttpCode(200)
  @ApiOperation({
    operationId: 'simulateThreeDs',
    summary: 'Simulate a 3D Secure authentication request (sandbox only)',
    description:
      "Plays a merchant's 3DS server and the directory server: sends a real EMV 3DS 2.2 AReq (app channel, " +
      'decoupled authentication accepted) with the card\u2019s number and expiry over HTTP to the access ' +
      'control server, and returns its answer. transStatus D is a challenge for you to decide: ' +
      'cardAuthentication.created is sent (webhook express lane), answer with POST /v1/3ds/accept or /reject ' +
      'before expiresAt. Y is frictionless (a payment of at most 30 currency units at a merchant the card ' +
      'already approved a challenge for); N or R are refusals with the EMV transStatusReason (08 no card record, ' +
      '05 expired card, 12 card not active). Without merchantAmount: a card verification. When the challenge ' +
      'ends, the ACS sends the RReq to the simulated directory server: GET /v1/simulate/3ds/{id} shows it.',
  })
  @ApiResponse({ status: 200, type: ThreeDsSimulationResponse })
  @ApiErrors('not_found')
  async simulate(@CurrentCaller() caller: Caller, @Body() body: SimulateThreeDsDto) {
    const result = await this.simulator.simulateThreeDs(caller, body);
    return {
      ...result,
      cardAuthentication: result.cardAuthentication
        ? renderCardAuthentication(result.cardAuthentication)
        : null,
    };
  }

  @Get(':cardAuthenticationId')
  @ApiOperation({
    operationId: 'getSimulatedThreeDs',
    summary: 'What the sandbox 3DS server saw of a challenge (sandbox only)',
    description:
      'The ARes the simulated 3DS server got for a challenge and, once you answered it or it expired, the RReq ' +
      'the access control server sent (result: Y with ECI 05, or N with reason 01 rejected / 14 timed out).',
  })
  @ApiResponse({ status: 200, type: SimulatedThreeDsResponse })
  @ApiErrors('not_found')
  async get(
    @CurrentCaller() caller: Caller,
    @Param('cardAuthenticationId', new ResourceIdPipe('tds')) cardAuthenticationId: string,
  ) {
    return this.simulator.simulatedThreeDs(caller, cardAuthenticationId);
  }
}

/** Where the simulated directory server takes RReqs (the `dsURL` of the sandbox's AReqs). */
export const SIMULATED_DS_PATH = '/simulator/3ds/ds';

registerProtocolErrors({
  prefix: `${SIMULATED_DS_PATH}/`,
  render: (code, message) => ({ status: 200, body: erroForRefusedRequest(code, message, 'D', 'RReq') }),
});

/**
 * The sandbox's directory server: receives the ACS's RReq (outside /v1, no API key, as the ACS reaches a DS)
 * and answers the RRes, or an Erro for a malformed message or an unknown transaction.
 */
@ApiExcludeController()
@Controller(SIMULATED_DS_PATH.slice(1))
export class SimulatedDirectoryServerController {
  constructor(
    @Inject(SIMULATED_DIRECTORY_SERVER_API) private readonly directoryServer: SimulatedDirectoryServerApi,
  ) {}

  @Post(':environment/rreq')
  @HttpCode(200)
  results(@Param('environment') environment: string, @Body() body: unknown): Promise<RRes | Erro> {
    if (!(ENVIRONMENTS as readonly string[]).includes(environment)) {
      throw new DomainError('not_found', 'No directory server here');
    }
    return this.directoryServer.receiveResult(environment as Environment, body);
  }
}
