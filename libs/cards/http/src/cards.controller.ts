import { Body, Controller, Get, HttpCode, Inject, Param, Post, Put, Query, Res } from '@nestjs/common';
import { ApiOperation, ApiResponse, ApiTags } from '@nestjs/swagger';
import { CARDS_API, CardsApi, renderCard } from '@cip/cards/contract';
import {
  ApiErrors,
  ApiPageResponse,
  Caller,
  CurrentCaller,
  ResourceIdPipe,
  toPage,
  toPageQuery,
} from '@cip/gateway/http';
import type { FastifyReply } from 'fastify';
import {
  CardListQueryDto,
  CardResponse,
  ReissueCardDto,
  SpendingControlsUpdateDto,
  toSpendingControlsUpdate,
} from './cards.dto';
import { CreateCardDto, toCreateCardInput } from './create-card.dto';

const RETRIES = 'Asking for the status the card already has changes nothing and returns the card.';

@ApiTags('Cards')
@Controller('v1/cards')
export class CardsController {
  constructor(@Inject(CARDS_API) private readonly cards: CardsApi) {}

  @Post()
  @HttpCode(201)
  @ApiOperation({
    operationId: 'createCard',
    summary: 'Create a card',
    description:
      'Issues a card to an active user with a provisioned wallet, spending from that wallet. Emits card.created. ' +
      'A virtual card is active at once. A physical card starts inactive: it is ordered from the card bureau ' +
      'and shipped to the address current now (later changes of the user address do not move it); activate ' +
      'it once shipped and received (card.shipped, card.trackingNumberUpdated). It needs a verified shipping ' +
      'address: the user address set by a verified shipping KYC or by a B2B program, or, for B2B programs ' +
      'only, the address given in the request; else 409 shipping_address_required (an address other than the ' +
      "user's verified one from a non-B2B program included). tier, deliveryType and address are for physical " +
      'cards only (400 otherwise). spendingControls, when given, are validated as PUT ' +
      '/v1/cards/{id}/spending-controls validates them (fields named spendingControls.*). 404 when the user ' +
      'is not yours, 409 user_not_active when the user is not active, 409 create_wallet_error when the user ' +
      'has no provisioned wallet, 503 service_unavailable when the environment issues no such card.',
  })
  @ApiResponse({ status: 201, type: CardResponse })
  @ApiErrors(
    'not_found',
    'user_not_active',
    'create_wallet_error',
    'shipping_address_required',
    'amount_too_large',
    'service_unavailable',
  )
  async create(
    @CurrentCaller() caller: Caller,
    @Body() body: CreateCardDto,
    @Res({ passthrough: true }) reply: FastifyReply,
  ) {
    const card = await this.cards.createCard(caller, toCreateCardInput(body));
    reply.header('location', `/v1/cards/${card.id}`);
    return renderCard(card);
  }

  @Get()
  @ApiOperation({
    operationId: 'listCards',
    summary: 'List cards',
    description: 'Your cards in this environment, newest first by default. Filters: userId, status.',
  })
  @ApiPageResponse(CardResponse)
  async list(@CurrentCaller() caller: Caller, @Query() query: CardListQueryDto) {
    const result = await this.cards.listCards(
      caller,
      { userId: query.userId, status: query.status },
      toPageQuery(query),
    );
    return toPage(query, result, renderCard);
  }

  @Get(':cardId')
  @ApiOperation({ operationId: 'getCard', summary: 'Retrieve a card', description: 'The card as it is now.' })
  @ApiResponse({ status: 200, type: CardResponse })
  async get(@CurrentCaller() caller: Caller, @Param('cardId', new ResourceIdPipe('crd')) cardId: string) {
    return renderCard(await this.cards.getCard(caller, cardId));
  }

  @Post(':cardId/activate')
  @HttpCode(200)
  @ApiOperation({
    operationId: 'activateCard',
    summary: 'Activate an inactive card',
    description:
      'Emits card.activated. A frozen card is unfrozen instead; a revoked one is refused. A physical card is ' +
      `activated once shipped: before that, 409 invalid_state_transition. ${RETRIES}`,
  })
  @ApiResponse({ status: 200, type: CardResponse })
  @ApiErrors('invalid_state_transition')
  async activate(
    @CurrentCaller() caller: Caller,
    @Param('cardId', new ResourceIdPipe('crd')) cardId: string,
  ) {
    return renderCard(await this.cards.activateCard(caller, cardId));
  }

  @Post(':cardId/freeze')
  @HttpCode(200)
  @ApiOperation({
    operationId: 'freezeCard',
    summary: 'Freeze an active card',
    description: `Emits card.frozen; authorizations are declined until it is unfrozen. ${RETRIES}`,
  })
  @ApiResponse({ status: 200, type: CardResponse })
  @ApiErrors('invalid_state_transition')
  async freeze(@CurrentCaller() caller: Caller, @Param('cardId', new ResourceIdPipe('crd')) cardId: string) {
    return renderCard(await this.cards.freezeCard(caller, cardId));
  }

  @Post(':cardId/unfreeze')
  @HttpCode(200)
  @ApiOperation({
    operationId: 'unfreezeCard',
    summary: 'Unfreeze a frozen card',
    description:
      'Emits card.unfrozen; the card is active again. 409 card_unfreeze_blocked_error ("cannot be unfrozen ' +
      'due to additional blocks", naming them) while the card has blocks (its `blocks` field): a compliance ' +
      "or fraud hold (the platform's support lifts it; the card then stays frozen until unfrozen here), its " +
      'user frozen, or three consecutive wrong PIN/CVV2 entries (card.blocked; support unblocks it, ' +
      `card.unblocked). The card stays frozen. ${RETRIES}`,
  })
  @ApiResponse({ status: 200, type: CardResponse })
  @ApiErrors('invalid_state_transition', 'card_unfreeze_blocked_error')
  async unfreeze(
    @CurrentCaller() caller: Caller,
    @Param('cardId', new ResourceIdPipe('crd')) cardId: string,
  ) {
    return renderCard(await this.cards.unfreezeCard(caller, cardId));
  }

  @Post(':cardId/revoke')
  @HttpCode(200)
  @ApiOperation({
    operationId: 'revokeCard',
    summary: 'Revoke (cancel) a card',
    description: `Emits card.revoked. Terminal: a revoked card never changes again. ${RETRIES}`,
  })
  @ApiResponse({ status: 200, type: CardResponse })
  @ApiErrors('invalid_state_transition')
  async revoke(@CurrentCaller() caller: Caller, @Param('cardId', new ResourceIdPipe('crd')) cardId: string) {
    return renderCard(await this.cards.revokeCard(caller, cardId));
  }

  @Put(':cardId/spending-controls')
  @ApiOperation({
    operationId: 'updateCardSpendingControls',
    summary: "Replace a card's spending controls",
    description:
      'Replaces the controls whole: limits per authorization and per UTC window (daily, weekly from Monday, ' +
      'monthly, yearly, all time) in USD, blocked MCC groups (omitted: the program defaults), and blocked or ' +
      'allowed MCCs. Emits card.spendingControlsUpdated; the controls the card already has change nothing. ' +
      '400 validation_error naming each failing field, 422 amount_too_large above 1,000,000,000, 409 ' +
      'invalid_state_transition on a revoked card.',
  })
  @ApiResponse({ status: 200, type: CardResponse })
  @ApiErrors('invalid_state_transition', 'amount_too_large')
  async updateSpendingControls(
    @CurrentCaller() caller: Caller,
    @Param('cardId', new ResourceIdPipe('crd')) cardId: string,
    @Body() body: SpendingControlsUpdateDto,
  ) {
    return renderCard(
      await this.cards.updateSpendingControls(caller, cardId, toSpendingControlsUpdate(body)),
    );
  }

  @Post(':cardId/reissue')
  @HttpCode(201)
  @ApiOperation({
    operationId: 'reissueCard',
    summary: 'Reissue (replace) a card',
    description:
      'Replaces a lost, stolen, damaged or expired card, as Lithic and Stripe Issuing do: the new card has a ' +
      'new number and expiry, the same user, wallet, type, tier and spending controls, and replacesCardId ' +
      'naming the old card; a physical one ships to the current verified shipping address of the user (B2B ' +
      'programs without one: where the old card went) and starts inactive. lost and stolen revoke the old ' +
      'card at once (card.revoked); damaged and expired keep it working until the new card is active (at once ' +
      'for a virtual card, on activation for a physical one), then revoke it. Emits card.created for the new ' +
      'card. A card is replaced once: asking again answers the same new card (and a later lost or stolen ' +
      'revokes the old card at once). 409 invalid_state_transition for a revoked card that was never ' +
      'replaced, 409 user_not_active, 409 shipping_address_required for a physical card without a verified ' +
      'address.',
  })
  @ApiResponse({ status: 201, type: CardResponse })
  @ApiErrors(
    'invalid_state_transition',
    'user_not_active',
    'shipping_address_required',
    'service_unavailable',
  )
  async reissue(
    @CurrentCaller() caller: Caller,
    @Param('cardId', new ResourceIdPipe('crd')) cardId: string,
    @Body() body: ReissueCardDto,
    @Res({ passthrough: true }) reply: FastifyReply,
  ) {
    const card = await this.cards.reissueCard(caller, cardId, { reason: body.reason });
    reply.header('location', `/v1/cards/${card.id}`);
    return renderCard(card);
  }
}
