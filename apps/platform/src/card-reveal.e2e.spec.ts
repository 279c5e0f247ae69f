import { ManualClock } from '@cip/shared/runtime';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import pino from 'pino';
import type { Browser } from 'playwright-core';
import { activeUserWithWallet, vaultSecretsOf, withSandboxLog } from './testing/cardholders';
import { describeWithChromium, launchChromium } from './testing/headless-chromium';
import { Harness, SANDBOX_KEY, startHarness } from './testing/platform-harness';
import { e2eTopology, itOnOneProcess } from './testing/topology';

/**
 * The page without its stylesheet, for "the card's digits are not on it": the stylesheet is a constant (its
 * CSP hash pins it), and its colours hold digit runs a random CVV2 or last 4 digits can match (#1d2433).
 */
const withoutStyle = (html: string) => html.replace(/<style>[\s\S]*?<\/style>/, '');
/** The text a person sees on a page: tags removed, spaces collapsed (the number is shown in groups). */
const visibleText = (html: string) =>
  withoutStyle(html)
    .replace(/<[^>]+>/g, ' ')
    .replace(/\s+/g, ' ');
/** The digits a person copies from the page's card number (its groups are elements of their own). */
const panOnPage = (html: string) => /<dd class="pan">(.*?)<\/dd>/.exec(html)?.[1].replace(/<[^>]+>/g, '');

describe('card details reveal: POST /v1/cards/{id}/reveal and its single-use page', () => {
  const clock = new ManualClock('2026-11-23T10:00:00.000Z');
  const logLines: string[] = [];
  let h: Harness;
  const json = { 'content-type': 'application/json' };

  // The test's clock (the 60 s expiry; on the split topology every process reads it); the one-process
  // platform also takes the test's logger (what reaches the logs), the split processes log to their files.
  const start = async (dataDir?: string) => {
    h = await startHarness(
      e2eTopology() === 'one-process'
        ? {
            clock,
            dataDir,
            logger: pino({ level: 'trace' }, { write: (line: string) => void logLines.push(line) }),
          }
        : { clock, dataDir },
    );
  };
  beforeAll(() => start());
  afterAll(async () => {
    await h.close();
  });

  const post = (path: string, body: object = {}, key = SANDBOX_KEY) =>
    h.http
      .post(path)
      .set({ 'x-api-key': key, ...json })
      .send(body);
  const get = (path: string, key = SANDBOX_KEY) => h.http.get(path).set({ 'x-api-key': key });
  /** The page as a browser (or a link preview, a prefetch) opens it: no API key, the link's path. */
  const open = (url: string) => h.http.get(new URL(url).pathname);
  /** The page's button: its form posts back to the page's url, with no field (as a browser sends it). */
  const reveal = (url: string) => h.http.post(new URL(url).pathname).type('form').send('');

  async function newCard(key = SANDBOX_KEY): Promise<{ id: string; last4: string }> {
    const { userId } = await activeUserWithWallet(h, { key });
    const card = await post('/v1/cards', { userId, type: 'virtual' }, key);
    expect(card.status).toBe(201);
    return card.body;
  }

  /** The card's secrets, read from the vault directly, to compare with the page. */
  const secretsOf = (cardId: string) => vaultSecretsOf(h, cardId);

  it('shows the PAN in groups, the CVV2 and the expiry once, with headers that keep them out of caches and referrers', async () => {
    const card = await newCard();
    const link = await post(`/v1/cards/${card.id}/reveal`);
    expect(link.status).toBe(201);
    expect(link.body).toEqual({
      url: expect.stringMatching(new RegExp(`^${h.url}/hosted/cards/reveal/[A-Za-z0-9_-]{43}$`)),
      expiresAt: expect.any(String),
    });
    // 60 s after the link was made, on the platform's (the test's) clock.
    expect(Date.parse(link.body.expiresAt)).toBe(clock.now().getTime() + 60_000);

    const { pan, cvv2, expMonth, expYear } = await secretsOf(card.id);
    // The page itself shows a button only, and uses nothing.
    const button = await open(link.body.url);
    expect(button.status).toBe(200);
    expect(withoutStyle(button.text)).toContain(
      '<form method="post"><button type="submit">Show card details</button></form>',
    );
    expect(withoutStyle(button.text)).not.toContain(pan.slice(-4));
    expect(button.headers).toMatchObject({
      'cache-control': 'no-store, max-age=0',
      'referrer-policy': 'no-referrer',
    });

    const page = await reveal(link.body.url);
    expect(page.status).toBe(200);
    expect(panOnPage(page.text)).toBe(pan);
    const text = visibleText(page.text);
    expect(text).toContain(pan.match(/\d{4}/g)?.join(' '));
    expect(text).toContain(`Expiry ${String(expMonth).padStart(2, '0')}/${String(expYear).slice(-2)}`);
    expect(text).toContain(`CVV2 ${cvv2}`);
    expect(page.headers).toMatchObject({
      'content-type': 'text/html; charset=utf-8',
      'cache-control': 'no-store, max-age=0',
      'referrer-policy': 'no-referrer',
      'x-content-type-options': 'nosniff',
    });
    const csp = page.headers['content-security-policy'];
    expect(csp).toContain("default-src 'none'");
    // The one form is the page's button, posting back to the page.
    expect(csp).toContain("form-action 'self'");
    expect(csp).toMatch(/style-src 'sha256-[A-Za-z0-9+/=]+'/);
    // Framing is allowed on purpose: distributors show the page inside their app.
    expect(csp).toContain('frame-ancestors *');
    expect(page.headers['x-frame-options']).toBeUndefined();

    expect((await open(link.body.url)).status).toBe(410);
    const again = await reveal(link.body.url);
    expect(again.status).toBe(410);
    expect(again.headers['cache-control']).toBe('no-store, max-age=0');
    expect(visibleText(again.text)).toContain('This link has expired or was already used');
    expect(withoutStyle(again.text)).not.toContain(pan.slice(-4));
    expect(withoutStyle(again.text)).not.toContain(cvv2);

    // A new link works once more.
    const next = await post(`/v1/cards/${card.id}/reveal`);
    expect(panOnPage((await reveal(next.body.url)).text)).toBe(pan);
  });

  // Issue 38: a HEAD answered 200 and used the link, so the cardholder's GET got the 410 page.
  it('leaves the link usable after a HEAD, GETs (a link preview, a prefetch) and a HEAD again; only the button uses it', async () => {
    const card = await newCard();
    const link = (await post(`/v1/cards/${card.id}/reveal`)).body;
    const path = new URL(link.url).pathname;
    const head = await h.http.head(path);
    expect(head.status).toBe(200);
    expect(head.headers['cache-control']).toBe('no-store, max-age=0');
    for (let i = 0; i < 3; i++) expect((await open(link.url)).status).toBe(200);
    expect((await h.http.head(path)).status).toBe(200);

    const page = await reveal(link.url);
    expect(page.status).toBe(200);
    expect(panOnPage(page.text)).toBe((await secretsOf(card.id)).pan);
    expect((await h.http.head(path)).status).toBe(410);
    expect((await open(link.url)).status).toBe(410);
  });

  it('shows nothing once the 60 s have passed', async () => {
    const card = await newCard();
    const late = (await post(`/v1/cards/${card.id}/reveal`)).body;
    const inTime = (await post(`/v1/cards/${card.id}/reveal`)).body;
    clock.advance(59_999);
    expect((await open(inTime.url)).status).toBe(200);
    expect((await reveal(inTime.url)).status).toBe(200);
    clock.advance(1);
    expect((await open(late.url)).status).toBe(410);
    const expired = await reveal(late.url);
    expect(expired.status).toBe(410);
    expect(withoutStyle(expired.text)).not.toContain(card.last4);
  });

  it('answers 410 for a token it never made, whatever its shape', async () => {
    // (Past 100 characters the router answers 404 before the page: no token is that long.)
    for (const token of ['A'.repeat(43), 'short', '%00', 'A'.repeat(90)]) {
      for (const page of [
        await h.http.get(`/hosted/cards/reveal/${token}`),
        await h.http.post(`/hosted/cards/reveal/${token}`).type('form').send(''),
      ]) {
        expect(page.status).toBe(410);
        expect(page.headers['cache-control']).toBe('no-store, max-age=0');
      }
    }
  });

  it("answers 404 for another distributor's card and 409 for a revoked card; a link to a card revoked since shows nothing", async () => {
    const other = await h.newDistributor({ allowedCountries: ['FR'] });
    const theirs = await newCard(other.sandboxKey);
    const notFound = await post(`/v1/cards/${theirs.id}/reveal`);
    expect(notFound.status).toBe(404);
    expect(notFound.body.error.code).toBe('not_found');
    const missing = await post('/v1/cards/crd-00000000-0000-4000-8000-000000000000/reveal');
    expect(missing.status).toBe(404);

    const card = await newCard();
    const beforeRevoke = (await post(`/v1/cards/${card.id}/reveal`)).body;
    expect((await post(`/v1/cards/${card.id}/revoke`)).status).toBe(200);
    const refused = await post(`/v1/cards/${card.id}/reveal`);
    expect(refused.status).toBe(409);
    expect(refused.body.error.code).toBe('invalid_state_transition');
    expect((await open(beforeRevoke.url)).status).toBe(410);
    const page = await reveal(beforeRevoke.url);
    expect(page.status).toBe(410);
    expect(withoutStyle(page.text)).not.toContain(card.last4);

    // A frozen card's details can still be shown to its holder.
    const frozen = await newCard();
    await post(`/v1/cards/${frozen.id}/freeze`);
    const link = await post(`/v1/cards/${frozen.id}/reveal`);
    expect((await reveal(link.body.url)).status).toBe(200);
  });

  itOnOneProcess(
    "reads the platform's logs through the injected logger, and its times on the injected clock",
    'records each link and each reveal for audit (who, when, from which request), never the details, and never logs the token',
    async () => {
      const card = await newCard();
      const link = await post(`/v1/cards/${card.id}/reveal`);
      const linkRequestId = link.headers['x-request-id'];
      expect((await open(link.body.url)).status).toBe(200);
      const page = await reveal(link.body.url);
      expect(page.status).toBe(200);
      const { pan, cvv2 } = await secretsOf(card.id);

      const stream = await withSandboxLog(h, (log) => log.eventStore.readStream(card.id));
      const audit = stream.filter((event) => event.type.startsWith('Card') && /Reveal/.test(event.type));
      expect(audit.map((event) => [event.type, event.data])).toEqual([
        [
          'CardRevealLinkIssued',
          { cardId: card.id, expiresAt: link.body.expiresAt, at: clock.now().toISOString() },
        ],
        ['CardDetailsRevealed', { cardId: card.id, linkRequestId, at: clock.now().toISOString() }],
      ]);
      for (const event of audit) {
        expect(event.metadata).toMatchObject({
          distributorId: h.distributorId,
          environment: 'sandbox',
        });
        expect(event.metadata.correlationId).toBe(linkRequestId);
      }
      expect(audit[1].metadata.causationId).toBe(page.headers['x-request-id']);
      expect(JSON.stringify(stream)).not.toContain(pan);
      expect(JSON.stringify(stream)).not.toContain(`"${cvv2}"`);

      // Nor the card's Events: a reveal is no Event of the distributor's contract.
      const events = await get(
        `/v1/events?userId=${(await get(`/v1/cards/${card.id}`)).body.userId}&limit=100`,
      );
      expect(events.body.items.map((event: { eventName: string }) => event.eventName)).not.toContain(
        expect.stringMatching(/reveal/i),
      );

      const token = new URL(link.body.url).pathname.split('/').pop() as string;
      const logs = logLines.join('');
      expect(logs).toContain('/hosted/cards/reveal/:token'); // the page's requests are logged, by route
      expect(logs).not.toContain(token);
      expect(logs).not.toContain(pan);
    },
  );

  it('honours a link after a restart, once, and refuses after the restart a link used before it', async () => {
    const card = await newCard();
    const fresh = (await post(`/v1/cards/${card.id}/reveal`)).body;
    const used = (await post(`/v1/cards/${card.id}/reveal`)).body;
    expect((await reveal(used.url)).status).toBe(200);
    expect((await open(fresh.url)).status).toBe(200);

    await h.close({ keepData: true });
    await start(h.dataDir);
    // The platform listens on another port now: the link's path is what identifies it.
    expect((await reveal(used.url)).status).toBe(410);
    const page = await reveal(fresh.url);
    expect(page.status).toBe(200);
    expect(panOnPage(page.text)).toBe((await secretsOf(card.id)).pan);
    expect((await reveal(fresh.url)).status).toBe(410);
  });
});

describeWithChromium('card reveal page browser test')(
  'the card reveal page in a real browser (headless Chromium), framed by a distributor',
  () => {
    let h: Harness;
    let browser: Browser;
    let distributor: Server;
    let distributorUrl: string;
    let frameSrc = '';
    const json = { 'x-api-key': SANDBOX_KEY, 'content-type': 'application/json' };

    beforeAll(async () => {
      h = await startHarness();
      // The distributor's app: another origin (another port), framing the link as the docs say.
      distributor = createServer((_request, response) => {
        response.writeHead(200, { 'content-type': 'text/html; charset=utf-8' });
        response.end(
          `<!doctype html><title>App</title><iframe src="${frameSrc}" width="480" height="480"></iframe>`,
        );
      });
      await new Promise<void>((resolve) => distributor.listen(0, '127.0.0.1', resolve));
      distributorUrl = `http://127.0.0.1:${(distributor.address() as AddressInfo).port}/`;
    });
    beforeAll(async () => {
      browser = await launchChromium();
    }, 60_000);
    afterAll(async () => {
      await browser?.close();
      await new Promise((resolve) => distributor?.close(resolve));
      await h?.close();
    });

    it('shows a button in the frame; its click shows the details once; the link survives the page loads before it', async () => {
      const { userId } = await activeUserWithWallet(h);
      const card = await h.http.post('/v1/cards').set(json).send({ userId, type: 'virtual' });
      const link = await h.http.post(`/v1/cards/${card.body.id}/reveal`).set(json).send({});
      frameSrc = link.body.url;
      const { pan } = await vaultSecretsOf(h, card.body.id);

      const page = await browser.newPage();
      try {
        // Loading the page (twice: a preview, a reload) uses nothing.
        for (let load = 0; load < 2; load++) {
          await page.goto(distributorUrl);
          const frame = page.frameLocator('iframe');
          await frame.getByRole('button', { name: 'Show card details' }).waitFor();
          expect(await frame.locator('body').textContent()).not.toContain(pan.slice(-4));
        }
        const frame = page.frameLocator('iframe');
        await frame.getByRole('button', { name: 'Show card details' }).click();
        await frame.getByText('Card number').waitFor();
        expect((await frame.locator('dd.pan').textContent())?.replace(/\s/g, '')).toBe(pan);

        // The app shown again: the link was used by the click.
        await page.goto(distributorUrl);
        await page.frameLocator('iframe').getByText('This link has expired or was already used').waitFor();
      } finally {
        await page.close();
      }
    });
  },
);
