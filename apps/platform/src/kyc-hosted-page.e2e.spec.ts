import type { Browser } from 'playwright-core';
import { describeWithChromium, launchChromium } from './testing/headless-chromium';
import { Harness, newUserBody, SANDBOX_KEY, startHarness } from './testing/platform-harness';

const describeWithBrowser = describeWithChromium('kyc-hosted-page browser test');

describeWithBrowser('the hosted KYC page in a real browser (headless Chromium)', () => {
  let h: Harness;
  let browser: Browser;
  const api = { 'x-api-key': SANDBOX_KEY, 'content-type': 'application/json' };

  // The platform within the project's budget (minutes on the split topology), the browser within its own.
  beforeAll(async () => {
    h = await startHarness();
  });
  beforeAll(async () => {
    browser = await launchChromium();
  }, 60_000);
  afterAll(async () => {
    await browser?.close();
    await h?.close();
  });

  const startKyc = async (type: string) => {
    const user = await h.http.post('/v1/users').set(api).send(newUserBody());
    const kyc = await h.http.put('/v1/kycs').set(api).send({ userId: user.body.id, type });
    expect(kyc.status).toBe(201);
    return { userId: user.body.id as string, kyc: kyc.body };
  };

  it('a user opens the link, corrects a mistake, submits, and the KYC is completed; the link then dies', async () => {
    const { userId, kyc } = await startKyc('full');
    const page = await browser.newPage();
    try {
      const opened = await page.goto(kyc.access.url);
      expect(opened?.status()).toBe(200);
      expect(await page.title()).toBe('Verify your identity');
      await expect(page.getByRole('heading', { level: 1 }).textContent()).resolves.toBe(
        'Verify your identity',
      );

      await page.getByLabel('First name').fill('Ada');
      await page.getByLabel('Last name').fill('Lovelace');
      await page.getByLabel('Date of birth').fill('2015-06-01');
      await page.getByLabel('Address', { exact: true }).fill('10 rue de Rivoli');
      await page.getByLabel('City').fill('Paris');
      await page.getByLabel('Postal code').fill('75001');
      await page.getByLabel('Country').fill('FR');
      await page.getByLabel('Identity document number').fill('X1234567');
      await page.getByRole('button', { name: 'Submit' }).click();

      // Server-side validation: the page comes back with the error and keeps what was typed.
      await page.getByText('You must be at least 18 years old').waitFor();
      expect(await page.getByLabel('First name').inputValue()).toBe('Ada');

      await page.getByLabel('Date of birth').fill('1990-12-10');
      await page.getByRole('button', { name: 'Submit' }).click();
      await page.getByRole('heading', { name: 'Thank you' }).waitFor();

      const read = await h.http.get(`/v1/kycs/${kyc.id}`).set(api);
      expect(read.body).toMatchObject({ status: 'completed', access: null });

      const again = await page.goto(kyc.access.url);
      expect(again?.status()).toBe(410);
      await page.getByText('This link has expired or is no longer valid').waitFor();

      const approved = await h.http.post(`/v1/simulate/kyc/${kyc.id}/approve`).set(api).send({});
      expect(approved.body).toMatchObject({ status: 'verified', userActivated: true });
      expect((await h.http.get(`/v1/users/${userId}`).set(api)).body.status).toBe('active');
    } finally {
      await page.close();
    }
  });

  it('a form posted from another site is refused', async () => {
    const { kyc } = await startKyc('light');
    const page = await browser.newPage();
    try {
      // A page of another origin (a data: URL) auto-submits a form to the link: the browser says cross-site
      // and carries no form token, so nothing is accepted.
      const html = `<form method="post" action="${kyc.access.url}"><input name="firstName" value="Eve"></form>`;
      await page.goto(`data:text/html,${encodeURIComponent(html)}`);
      const [response] = await Promise.all([
        page.waitForNavigation(),
        page.evaluate('document.forms[0].submit()'),
      ]);
      expect(response?.status()).toBe(403);
      expect((await h.http.get(`/v1/kycs/${kyc.id}`).set(api)).body.status).toBe('pending');
    } finally {
      await page.close();
    }
  });
});
