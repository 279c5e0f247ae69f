import type { ArgumentsHost } from '@nestjs/common';
import type { Logger } from '@cip/shared/runtime';
import { ApiExceptionFilter } from './error-responses';

/** What the filter logs for an unexpected error on a request to `url` that matched `route`. */
function loggedUrl(url: string, route: string): unknown {
  const logged: Record<string, unknown>[] = [];
  const logger = { error: (fields: Record<string, unknown>) => logged.push(fields) } as unknown as Logger;
  const reply = { code: () => reply, headers: () => reply, type: () => reply, send: () => reply };
  const host = {
    switchToHttp: () => ({
      getRequest: () => ({ id: 'req-1', url, routeOptions: { url: route } }),
      getResponse: () => reply,
    }),
  } as unknown as ArgumentsHost;
  new ApiExceptionFilter(logger).catch(new Error('a bug'), host);
  return logged[0]?.url;
}

describe('the exception filter log of an unexpected error', () => {
  it('names the request path of an API call', () => {
    expect(loggedUrl('/v1/cards/crd-1/reveal?x=1', '/v1/cards/:cardId/reveal')).toBe(
      '/v1/cards/crd-1/reveal?x=1',
    );
  });

  it("names only the route of a hosted page, whose path holds the link's token", () => {
    expect(loggedUrl('/hosted/cards/reveal/s3cr3t-t0ken', '/hosted/cards/reveal/:token')).toBe(
      '/hosted/cards/reveal/:token',
    );
  });
});
