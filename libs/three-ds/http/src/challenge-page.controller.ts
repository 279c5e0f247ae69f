import { Controller, Inject, Param, Post, Req, Res } from '@nestjs/common';
import { ApiExcludeController } from '@nestjs/swagger';
import { escapeHtml, renderHostedPage } from '@cip/gateway/http';
import { ENVIRONMENTS, type Environment } from '@cip/shared/contracts';
import { ACS_API, CHALLENGE_PAGE_PATH, type AcsApi, type ChallengeScreen } from '@cip/three-ds/contract';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { createHash } from 'node:crypto';

const STYLE = `
  *{box-sizing:border-box}
  body{margin:0;font:16px/1.5 system-ui,-apple-system,"Segoe UI",Roboto,sans-serif;background:#f3f5f9;color:#1d2433}
  main{max-width:420px;margin:24px auto;padding:24px;background:#fff;border-radius:12px;box-shadow:0 2px 12px rgba(20,30,60,.08)}
  h1{font-size:20px;margin:0 0 16px}
  dl{display:grid;grid-template-columns:auto 1fr;gap:4px 16px;margin:0 0 16px}
  dt{color:#5b6478}
  dd{margin:0;font-weight:600}
  button{width:100%;padding:12px;border:0;border-radius:8px;background:#2853d8;color:#fff;font-size:16px}
`;

/** `threeDSSessionData`: the requestor's opaque state, posted back unchanged with the CRes (base64url). */
const SESSION_DATA = /^[A-Za-z0-9_-]{1,1024}={0,2}$/;

/**
 * Headers of the challenge page: no script, its one style by hash, framed by any origin (the 3DS requestor
 * shows it in an iframe of the merchant's checkout, as EMV browser challenges are shown), and forms may post
 * only here and to the requestor's `notificationURL` (the final CRes).
 */
function headers(notificationURL?: string): Record<string, string> {
  const formAction = notificationURL ? `'self' ${new URL(notificationURL).origin}` : "'self'";
  return {
    'content-type': 'text/html; charset=utf-8',
    'content-security-policy': [
      "default-src 'none'",
      `style-src 'sha256-${createHash('sha256').update(STYLE).digest('base64')}'`,
      "base-uri 'none'",
      `form-action ${formAction}`,
      'frame-ancestors *',
    ].join('; '),
    'x-content-type-options': 'nosniff',
    'referrer-policy': 'no-referrer',
    'cache-control': 'no-store',
  };
}

const hidden = (name: string, value: string | undefined) =>
  value === undefined ? '' : `<input type="hidden" name="${name}" value="${escapeHtml(value)}">`;

function render(screen: ChallengeScreen, action: string, sessionData: string | undefined): string {
  if (screen.kind === 'invalid') {
    return renderHostedPage({
      title: 'Authentication',
      style: STYLE,
      body: '<h1>This authentication cannot be shown</h1><p>Return to the merchant and try again.</p>',
    });
  }
  if (screen.kind === 'pending') {
    const amount =
      screen.merchantAmount === null
        ? 'Card verification'
        : `${escapeHtml(screen.merchantAmount)} ${escapeHtml(screen.merchantCurrency ?? '')}`;
    return renderHostedPage({
      title: 'Confirm your purchase',
      style: STYLE,
      body: `<h1>Confirm your purchase</h1>
<dl><dt>Merchant</dt><dd>${escapeHtml(screen.merchantName)}</dd><dt>Amount</dt><dd>${amount}</dd><dt>Card</dt><dd>${escapeHtml(screen.maskedPan)}</dd></dl>
<p>Open your card app and approve (or decline) this purchase, then continue. Without an answer by ${escapeHtml(screen.expiresAt)} it is declined.</p>
<form method="post" action="${escapeHtml(action)}">${hidden('creq', screen.creq)}${hidden('threeDSSessionData', sessionData)}<button type="submit">Continue</button></form>`,
    });
  }
  return renderHostedPage({
    title: 'Authentication complete',
    style: STYLE,
    body: `<h1>${screen.transStatus === 'Y' ? 'Purchase approved' : 'Purchase not approved'}</h1>
<form method="post" action="${escapeHtml(screen.notificationURL)}">${hidden('cres', screen.cres)}${hidden('threeDSSessionData', sessionData)}<button type="submit">Return to the merchant</button></form>`,
  });
}

/**
 * The browser challenge of the access control server (ARes `C`), a hosted page without an API key: the
 * cardholder's browser posts the CReq (form field `creq`, base64url JSON, and the requestor's
 * `threeDSSessionData`) from the merchant's checkout. The page shows the purchase and asks the cardholder to
 * approve it in the distributor's app (`cardAuthentication.created` went to the distributor); once the
 * distributor answered (or the deadline passed), it hands the final CRes to the browser, which posts it to
 * the requestor's `notificationURL`. Server-rendered, no script.
 */
@ApiExcludeController()
@Controller(CHALLENGE_PAGE_PATH.slice(1))
export class ChallengePageController {
  constructor(@Inject(ACS_API) private readonly acs: AcsApi) {}

  @Post(':environment')
  async challenge(
    @Param('environment') environment: string,
    @Req() request: FastifyRequest,
    @Res() reply: FastifyReply,
  ) {
    const posted = (request.body ?? {}) as Record<string, unknown>;
    const sessionData =
      typeof posted.threeDSSessionData === 'string' && SESSION_DATA.test(posted.threeDSSessionData)
        ? posted.threeDSSessionData
        : undefined;
    const screen: ChallengeScreen = (ENVIRONMENTS as readonly string[]).includes(environment)
      ? await this.acs.challengeRequest(environment as Environment, posted.creq)
      : { kind: 'invalid' };
    const action = `${CHALLENGE_PAGE_PATH}/${environment}`;
    return reply
      .code(screen.kind === 'invalid' ? 400 : 200)
      .headers(headers(screen.kind === 'done' ? screen.notificationURL : undefined))
      .send(render(screen, action, sessionData));
  }
}
