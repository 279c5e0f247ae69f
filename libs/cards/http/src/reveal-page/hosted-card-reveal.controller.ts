import { Controller, Get, Inject, Param, Post, Req, Res } from '@nestjs/common';
import { ApiExcludeController } from '@nestjs/swagger';
import { CARD_REVEAL_API, CARD_REVEAL_PATH, CardRevealApi } from '@cip/cards/contract';
import { LOGGER } from '@cip/shared/infrastructure';
import type { Logger } from '@cip/shared/runtime';
import type { FastifyReply, FastifyRequest } from 'fastify';
import {
  REVEAL_PAGE_HEADERS,
  renderGoneRevealPage,
  renderRevealButtonPage,
  renderRevealPage,
  renderRevealProblemPage,
} from './reveal-page';

/**
 * The single-use card reveal page, outside /v1 and without an API key: the unguessable link is the
 * credential. A GET (and so a HEAD, a link preview, a prefetch, a scanner following links) only looks:
 * it shows a button while the link is usable, and uses nothing. The button's form POST (same url) uses the
 * link (and records the reveal) and shows the details; any later request, or one after the link expired,
 * or for a card revoked since, is a 410 page without them. The token is in the path, which no log line
 * carries: the access log records the route pattern (`/hosted/cards/reveal/:token`), and failures here
 * are logged with the request id only.
 */
@ApiExcludeController()
@Controller(CARD_REVEAL_PATH.slice(1))
export class HostedCardRevealController {
  constructor(
    @Inject(CARD_REVEAL_API) private readonly reveals: CardRevealApi,
    @Inject(LOGGER) private readonly logger: Logger,
  ) {}

  @Get(':token')
  async show(@Param('token') token: string, @Req() request: FastifyRequest, @Res() reply: FastifyReply) {
    reply.headers(REVEAL_PAGE_HEADERS);
    try {
      if (!(await this.reveals.revealLinkUsable(token))) return reply.code(410).send(renderGoneRevealPage());
      return reply.code(200).send(renderRevealButtonPage());
    } catch (error) {
      this.logger.error({ err: error, reqId: request.id }, 'card reveal page failed');
      return reply.code(500).send(renderRevealProblemPage());
    }
  }

  @Post(':token')
  async reveal(@Param('token') token: string, @Req() request: FastifyRequest, @Res() reply: FastifyReply) {
    reply.headers(REVEAL_PAGE_HEADERS);
    try {
      const details = await this.reveals.revealCardDetails(token, String(request.id));
      if (!details) return reply.code(410).send(renderGoneRevealPage());
      return reply.code(200).send(renderRevealPage(details));
    } catch (error) {
      this.logger.error({ err: error, reqId: request.id }, 'card reveal page failed');
      return reply.code(500).send(renderRevealProblemPage());
    }
  }
}
