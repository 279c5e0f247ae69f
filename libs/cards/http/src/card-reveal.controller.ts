import { Controller, HttpCode, Inject, Param, Post } from '@nestjs/common';
import { ApiOperation, ApiProperty, ApiResponse, ApiTags } from '@nestjs/swagger';
import { CARD_REVEAL_API, CardRevealApi, REVEAL_LINK_TTL_MS } from '@cip/cards/contract';
import { ApiErrors, Caller, CurrentCaller, ResourceIdPipe } from '@cip/gateway/http';

export class CardRevealLinkResponse {
  @ApiProperty({
    example: 'https://api.example.com/hosted/cards/reveal/3q2-7wVx2m5f1ZkQy0cJtq8n8b6a2W4yE9rV1sKp0uM',
    description:
      "The page showing the card number, CVV2 and expiry. Open it in the cardholder's browser or an iframe " +
      'of your app: it shows a button, and the details once the cardholder clicks it, once only.',
  })
  url: string;
  @ApiProperty({ format: 'date-time', description: 'After this instant the link shows nothing' })
  expiresAt: string;
}

/**
 * `POST /v1/cards/{id}/reveal`: the distributor gets a link, never the card's details (API-DECISIONS,
 * "Cards"). The page behind it is `HostedCardRevealController`.
 */
@ApiTags('Cards')
@Controller('v1/cards')
export class CardRevealController {
  constructor(@Inject(CARD_REVEAL_API) private readonly reveals: CardRevealApi) {}

  @Post(':cardId/reveal')
  @HttpCode(201)
  @ApiOperation({
    operationId: 'createCardRevealLink',
    summary: "Make a single-use link to a page showing the card's details",
    description:
      'The card number, CVV2 and expiry never pass through your systems: this returns a link (`url`) to a ' +
      'page the platform serves. Opening it (a `GET`) shows a "Show card details" button and uses nothing, ' +
      'so a `HEAD`, a link preview, a prefetch or a scanner following links does not spend it; the button ' +
      'posts a form back to the same url, and that `POST` shows the details, once, within ' +
      `${REVEAL_LINK_TTL_MS / 1000} s (\`expiresAt\`). Each call makes a new link. Send the cardholder to it, or ` +
      'frame it in your app (`<iframe src="{url}">`; a sandboxed iframe needs `sandbox="allow-forms"`): the ' +
      'page may be framed by any site (its one button only shows the details inside the frame, whose content ' +
      'cannot be read across origins) and answers with `Cache-Control: no-store`, `Referrer-Policy: ' +
      "no-referrer` and a Content-Security-Policy that loads nothing and lets forms post to the page's own " +
      'origin only. Used, late, or for a card revoked since, it is a 410 page saying so. The link and each ' +
      'reveal are recorded for audit (not sent as Events). 404 when the card is not yours, 409 ' +
      'invalid_state_transition when it is revoked.',
  })
  @ApiResponse({ status: 201, type: CardRevealLinkResponse })
  @ApiErrors('not_found', 'invalid_state_transition')
  async reveal(
    @CurrentCaller() caller: Caller,
    @Param('cardId', new ResourceIdPipe('crd')) cardId: string,
  ): Promise<CardRevealLinkResponse> {
    return this.reveals.createRevealLink(caller, cardId);
  }
}
