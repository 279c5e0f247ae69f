import type { RevealedCardDetails } from '@cip/cards/contract';
import { renderHostedPage } from '@cip/gateway/http';
import { createHash } from 'node:crypto';

// ---------------------------------------------------------------------------------------------------
// HTML of the single-use card reveal page: server-rendered, no script, nothing loaded from anywhere. Its
// GET shows a button only; the button's form POST (to the same url) uses the link and shows the details.
// ---------------------------------------------------------------------------------------------------

const STYLE = `
  *{box-sizing:border-box}
  body{margin:0;font:16px/1.5 system-ui,-apple-system,"Segoe UI",Roboto,sans-serif;background:#f3f5f9;color:#1d2433}
  main{max-width:420px;margin:24px auto;padding:24px;background:#fff;border-radius:12px;box-shadow:0 2px 12px rgba(20,30,60,.08)}
  h1{font-size:20px;margin:0 0 16px}
  dl{margin:0}
  .row{display:flex;justify-content:space-between;align-items:baseline;padding:10px 0;border-bottom:1px solid #e4e8f0}
  .row:last-child{border-bottom:0}
  dt{color:#5b6478;font-size:14px}
  dd{margin:0;font:600 18px/1.4 ui-monospace,SFMono-Regular,Menlo,Consolas,monospace;user-select:all}
  .pan span{margin-left:.45em}
  .pan span:first-child{margin-left:0}
  p{margin:16px 0 0;font-size:13px;color:#5b6478}
  form{margin:16px 0 0}
  button{width:100%;padding:12px 16px;border:0;border-radius:8px;background:#1d4ed8;color:#fff;font:600 16px/1.4 system-ui,sans-serif;cursor:pointer}`;

/**
 * Headers of the reveal pages. Nothing may load (`default-src 'none'`; the one inline style is allowed by
 * its hash), forms post to the page's own origin only (the button's POST), no base, no caching anywhere,
 * no referrer, no indexing. Framing is allowed from any origin on purpose: distributors show the page
 * inside their app. Its one control, the button, only shows the details in the frame: a framing site that
 * tricked a user into clicking it would make the details visible to that user, never to itself (a
 * cross-origin parent cannot read the frame's content). So there is no X-Frame-Options (it cannot express
 * "any"), and `frame-ancestors *`.
 */
export const REVEAL_PAGE_HEADERS: Record<string, string> = {
  'content-type': 'text/html; charset=utf-8',
  'content-security-policy': [
    "default-src 'none'",
    `style-src 'sha256-${createHash('sha256').update(STYLE).digest('base64')}'`,
    "base-uri 'none'",
    "form-action 'self'",
    'frame-ancestors *',
  ].join('; '),
  'x-content-type-options': 'nosniff',
  'referrer-policy': 'no-referrer',
  'cache-control': 'no-store, max-age=0',
  pragma: 'no-cache',
  'x-robots-tag': 'noindex, nofollow',
};

const page = (title: string, body: string): string => renderHostedPage({ title, style: STYLE, body });

const digits = (value: string, what: string): string => {
  // Only digits are ever put in the page, so nothing in it needs escaping.
  if (!/^\d+$/.test(value)) throw new Error(`The card's ${what} is not digits`);
  return value;
};

/** The card number in groups of four, each its own element: read grouped, copied as one number. */
const groupedPan = (pan: string) =>
  (digits(pan, 'number').match(/\d{1,4}/g) ?? []).map((group) => `<span>${group}</span>`).join('');

/**
 * The page a GET (or a HEAD, a link preview, a prefetch) gets: a button, nothing else. Its form has no
 * action, so it posts back to the page's own url (the token stays out of the HTML) and carries no field.
 */
export function renderRevealButtonPage(): string {
  return page(
    'Card details',
    `<h1>Card details</h1>
<p>Your card number, expiry date and CVV2 are shown once, on this screen. Make sure no one else can see it.</p>
<form method="post"><button type="submit">Show card details</button></form>`,
  );
}

export function renderRevealPage(card: RevealedCardDetails): string {
  const month = digits(String(card.expMonth).padStart(2, '0'), 'expiry month');
  const year = digits(String(card.expYear % 100).padStart(2, '0'), 'expiry year');
  return page(
    'Card details',
    `<h1>Card details</h1>
<dl>
<div class="row"><dt>Card number</dt><dd class="pan">${groupedPan(card.pan)}</dd></div>
<div class="row"><dt>Expiry</dt><dd>${month}/${year}</dd></div>
<div class="row"><dt>CVV2</dt><dd>${digits(card.cvv2, 'CVV2')}</dd></div>
</dl>
<p>This page is shown once: reloading it will not show these details again. Do not share them.</p>`,
  );
}

export function renderGoneRevealPage(): string {
  return page(
    'Link no longer valid',
    `<h1>This link has expired or was already used</h1>
<p>Card details are shown once, within a minute of the link being made. Ask the app that sent you here to
show them again.</p>`,
  );
}

export function renderRevealProblemPage(): string {
  return page(
    'Something went wrong',
    '<h1>Something went wrong</h1>\n<p>The card details could not be shown. Ask the app that sent you here to try again.</p>',
  );
}
