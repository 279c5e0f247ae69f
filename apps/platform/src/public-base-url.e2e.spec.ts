import { publicBaseUrl, readPlatformConfig } from '@cip/shared/runtime';
import { Harness, newUserBody, SANDBOX_KEY, startHarness } from './testing/platform-harness';

/**
 * The links the platform hands out start with `publicBaseUrl` of the environment it runs with, the function
 * the CLI prints its links with (apps/cli/src/kyc-rfi.int.spec.ts): an operator's link is the platform's.
 */
describe('the public base URL of hosted links', () => {
  const headers = { 'x-api-key': SANDBOX_KEY, 'content-type': 'application/json' };

  const hostedLinkOf = async (h: Harness) => {
    const user = await h.http.post('/v1/users').set(headers).send(newUserBody());
    expect(user.status).toBe(201);
    const kyc = await h.http.put('/v1/kycs').set(headers).send({ userId: user.body.id, type: 'full' });
    expect(kyc.status).toBe(201);
    return kyc.body.access.url as string;
  };

  it('is the listening URL without PUBLIC_BASE_URL: what the CLI prints with the same HOST and PORT', async () => {
    const h = await startHarness();
    try {
      const port = new URL(h.url).port;
      const cliBaseUrl = publicBaseUrl(readPlatformConfig({ HOST: '127.0.0.1', PORT: port }));
      expect(cliBaseUrl).toBe(`http://127.0.0.1:${port}`);
      expect(await hostedLinkOf(h)).toMatch(new RegExp(`^http://127\\.0\\.0\\.1:${port}/hosted/kyc/kyc-`));
    } finally {
      await h.close();
    }
  });

  it('is PUBLIC_BASE_URL when set, without its trailing slash', async () => {
    const h = await startHarness({ publicBaseUrl: 'https://cards.example.com/' });
    try {
      expect(await hostedLinkOf(h)).toMatch(/^https:\/\/cards\.example\.com\/hosted\/kyc\/kyc-/);
    } finally {
      await h.close();
    }
  });
});
