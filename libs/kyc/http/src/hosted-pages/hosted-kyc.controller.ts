import { Controller, Get, Inject, Param, Post, Req, Res } from '@nestjs/common';
import { ApiExcludeController } from '@nestjs/swagger';
import { HOSTED_KYC_PATH, KYC_HOSTED_PAGES_API, KycHostedPagesApi } from '@cip/kyc/contract';
import {
  HOSTED_PAGE_HEADERS,
  renderDeadLinkPage,
  renderFormPage,
  renderProblemPage,
  renderSubmittedPage,
} from './hosted-page';
import type { Logger } from '@cip/shared/runtime';
import { LOGGER } from '@cip/shared/infrastructure';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { randomBytes, timingSafeEqual } from 'node:crypto';

const CSRF_COOKIE = 'kyc_form';

function cookie(request: FastifyRequest, name: string): string | null {
  for (const part of (request.headers.cookie ?? '').split(';')) {
    const [key, ...value] = part.trim().split('=');
    if (key === name) return value.join('=');
  }
  return null;
}

const sameToken = (a: string | null, b: unknown): boolean =>
  typeof a === 'string' &&
  typeof b === 'string' &&
  a.length === b.length &&
  a.length > 0 &&
  timingSafeEqual(Buffer.from(a), Buffer.from(b));

/**
 * The sandbox provider's hosted verification page, outside /v1 and without an API key: the unguessable link
 * is the credential. Everything is rendered on the server and works without script. The form post is guarded
 * against cross-site submission twice over: a browser that says the post comes from another site is refused,
 * and the post must carry the random token that the page set both in a cookie and in a hidden field.
 */
@ApiExcludeController()
@Controller(HOSTED_KYC_PATH.slice(1))
export class HostedKycController {
  constructor(
    @Inject(KYC_HOSTED_PAGES_API) private readonly kycs: KycHostedPagesApi,
    @Inject(LOGGER) private readonly logger: Logger,
  ) {}

  @Get(':token')
  async show(@Param('token') token: string, @Req() request: FastifyRequest, @Res() reply: FastifyReply) {
    await this.respond(reply, request, async () => {
      const session = await this.kycs.openHostedSession(token);
      if (!session) return this.dead(reply);
      const csrfToken = randomBytes(24).toString('base64url');
      reply.header(
        'set-cookie',
        `${CSRF_COOKIE}=${csrfToken}; Path=${HOSTED_KYC_PATH}/; HttpOnly; SameSite=Strict`,
      );
      return reply.code(200).send(renderFormPage({ form: session.form, values: {}, errors: {}, csrfToken }));
    });
  }

  @Post(':token')
  async submit(@Param('token') token: string, @Req() request: FastifyRequest, @Res() reply: FastifyReply) {
    await this.respond(reply, request, async () => {
      const posted = (request.body ?? {}) as Record<string, unknown>;
      const csrf = cookie(request, CSRF_COOKIE);
      if (request.headers['sec-fetch-site'] === 'cross-site' || !sameToken(csrf, posted.csrf)) {
        return reply
          .code(403)
          .send(
            renderProblemPage(
              'This form could not be accepted. Open your verification link again and resubmit.',
            ),
          );
      }
      const outcome = await this.kycs.submitHostedForm(token, posted);
      if (!outcome) return this.dead(reply);
      if ('errors' in outcome) {
        return reply.code(422).send(
          renderFormPage({
            form: outcome.session.form,
            values: outcome.values,
            errors: outcome.errors,
            csrfToken: csrf as string,
          }),
        );
      }
      reply.header(
        'set-cookie',
        `${CSRF_COOKIE}=; Path=${HOSTED_KYC_PATH}/; HttpOnly; SameSite=Strict; Max-Age=0`,
      );
      return reply.code(200).send(renderSubmittedPage());
    });
  }

  /** A link that is unknown, expired, revoked, resumed or already used: one page, 410 Gone. */
  private dead(reply: FastifyReply) {
    return reply.code(410).send(renderDeadLinkPage());
  }

  /** Pages answer in HTML, errors included: the person holding the link is not an API client. */
  private async respond(reply: FastifyReply, request: FastifyRequest, handle: () => Promise<unknown>) {
    reply.headers(HOSTED_PAGE_HEADERS);
    try {
      await handle();
    } catch (error) {
      this.logger.error({ err: error, reqId: request.id }, 'hosted KYC page failed');
      reply.code(500).send(renderProblemPage('Please try again in a moment.'));
    }
  }
}
