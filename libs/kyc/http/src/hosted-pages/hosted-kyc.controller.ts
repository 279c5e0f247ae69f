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
import { createHmac, randomBytes, timingSafeEqual } from 'node:crypto';

const CSRF_COOKIE = 'kyc_form';

const sameToken = (a: string | null, b: unknown): boolean =>
  typeof a === 'string' &&
  typeof b === 'string' &&
  a.length === b.length &&
  a.length > 0 &&
  timingSafeEqual(Buffer.from(a), Buffer.from(b));

/**
 * The form token of one link: a random nonce and its HMAC keyed by the link's own token. A token taken from
 * the page of one link (an attacker's own verification, say) is worthless on another link, and the server
 * keeps no state for it.
 */
function formTokenFor(linkToken: string, nonce = randomBytes(18).toString('base64url')): string {
  return `${nonce}.${createHmac('sha256', linkToken).update(nonce).digest('base64url')}`;
}

function isFormTokenOf(linkToken: string, formToken: string): boolean {
  const nonce = formToken.split('.')[0];
  return sameToken(formTokenFor(linkToken, nonce), formToken);
}

/** The cookie lives on the link's own path, so two links open in one browser do not overwrite each other. */
const formCookie = (linkToken: string, value: string, extra = '') =>
  `${CSRF_COOKIE}=${value}; Path=${HOSTED_KYC_PATH}/${encodeURIComponent(linkToken)}; HttpOnly; SameSite=Strict${extra}`;

/**
 * Whether a browser said the post comes from elsewhere. Fetch metadata is authoritative when present (the
 * page's no-referrer policy makes browsers send `Origin: null` even on same-origin posts, so Origin cannot
 * overrule it). Without it (older browsers), an `Origin` naming another host is refused; an opaque `null`
 * origin says nothing either way and is left to the link-bound form token.
 */
function isCrossOrigin(request: FastifyRequest): boolean {
  const site = request.headers['sec-fetch-site'];
  if (site !== undefined) return site === 'cross-site' || site === 'same-site';
  const origin = request.headers.origin;
  if (origin === undefined || origin === 'null') return false;
  try {
    return new URL(origin).host !== request.headers.host;
  } catch {
    return true;
  }
}

function cookie(request: FastifyRequest, name: string): string | null {
  for (const part of (request.headers.cookie ?? '').split(';')) {
    const [key, ...value] = part.trim().split('=');
    if (key === name) return value.join('=');
  }
  return null;
}

/**
 * The sandbox provider's hosted verification page, outside /v1 and without an API key: the unguessable link
 * is the credential. Everything is rendered on the server and works without script. The form post is guarded
 * against cross-site submission twice over: a browser that says the post comes from another origin (Fetch
 * metadata or `Origin`) is refused, and the post must carry the token that the page set both in a cookie and
 * in a hidden field, bound to this link.
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
      const csrfToken = formTokenFor(token);
      reply.header('set-cookie', formCookie(token, csrfToken));
      return reply.code(200).send(renderFormPage({ form: session.form, values: {}, errors: {}, csrfToken }));
    });
  }

  @Post(':token')
  async submit(@Param('token') token: string, @Req() request: FastifyRequest, @Res() reply: FastifyReply) {
    await this.respond(reply, request, async () => {
      const posted = (request.body ?? {}) as Record<string, unknown>;
      const csrf = cookie(request, CSRF_COOKIE);
      if (isCrossOrigin(request) || !sameToken(csrf, posted.csrf) || !isFormTokenOf(token, csrf as string)) {
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
      reply.header('set-cookie', formCookie(token, '', '; Max-Age=0'));
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
