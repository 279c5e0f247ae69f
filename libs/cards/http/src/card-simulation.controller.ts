import { Body, Controller, HttpCode, Inject, Param, Post } from '@nestjs/common';
import { ApiOperation, ApiResponse, ApiTags } from '@nestjs/swagger';
import { CARD_SIMULATION_API, CardSimulationApi, renderCard } from '@cip/cards/contract';
import { ApiErrors, Caller, CurrentCaller, ResourceIdPipe, SandboxOnly } from '@cip/gateway/http';
import { CardResponse, SimulateShipmentDto } from './cards.dto';

@ApiTags('Simulations')
@Controller('v1/simulate/cards')
@SandboxOnly()
export class SimulateCardShipmentController {
  constructor(@Inject(CARD_SIMULATION_API) private readonly cards: CardSimulationApi) {}

  @Post(':cardId/ship')
  @HttpCode(200)
  @ApiOperation({
    operationId: 'simulateCardShipment',
    summary: 'Simulate the shipment of a physical card (sandbox)',
    description:
      "The sandbox card bureau's shipping notice: the card was dispatched. Emits card.shipped, then " +
      'card.trackingNumberUpdated (trackingNumber, requestedShippingMethod, actualShippingMethod); the card can ' +
      'then be activated. On a card shipped already, another tracking number or method emits ' +
      'card.trackingNumberUpdated alone, and the same ones change nothing. 409 invalid_state_transition for a ' +
      'virtual or revoked card, or one the card bureau has not accepted yet (try again).',
  })
  @ApiResponse({ status: 200, type: CardResponse })
  @ApiErrors('invalid_state_transition')
  async ship(
    @CurrentCaller() caller: Caller,
    @Param('cardId', new ResourceIdPipe('crd')) cardId: string,
    @Body() body: SimulateShipmentDto,
  ) {
    return renderCard(await this.cards.simulateShipment(caller, cardId, body));
  }
}
