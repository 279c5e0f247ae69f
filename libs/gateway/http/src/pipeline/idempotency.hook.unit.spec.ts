import type { Tenant } from '@cip/shared/contracts';
import { IdempotentRequest, idempotencyIdentity } from './idempotency.hook';

const tenant: Tenant = { distributorId: 'dst-a', environment: 'sandbox' };
const ROUTE = '/v1/wallets/:walletId/withdrawals';
const request = (overrides: Partial<IdempotentRequest> = {}): IdempotentRequest => ({
  method: 'POST',
  url: '/v1/wallets/wlt-1/withdrawals?b=2&a=1',
  route: ROUTE,
  params: { walletId: 'wlt-1' },
  query: { b: '2', a: '1' },
  body: { amount: 10, toAddress: '0xabc', memo: { x: 1, y: [1, 2] } },
  ...overrides,
});

describe('the identity of an idempotent request (key, method, route, query, body, tenant)', () => {
  const base = idempotencyIdentity(request(), 'key-1', tenant);

  it('is the same for the same request, whatever the order of query parameters and JSON keys', () => {
    expect(idempotencyIdentity(request(), 'key-1', tenant)).toBe(base);
    const reordered = request({
      query: { a: '1', b: '2' },
      body: { memo: { y: [1, 2], x: 1 }, toAddress: '0xabc', amount: 10 },
    });
    expect(idempotencyIdentity(reordered, 'key-1', tenant)).toBe(base);
  });

  it('is the same for every spelling of the path the router takes for this route and these parameters', () => {
    for (const url of [
      '/v1/wallets/wlt-1/withdrawals/?a=1&b=2',
      '/v1/wallets/wlt%2D1/withdrawals?b=2&a=1',
      '/v1/%77allets/wlt-1/withdrawals?b=%32&a=1',
    ]) {
      expect(idempotencyIdentity(request({ url }), 'key-1', tenant)).toBe(base);
    }
  });

  it('differs when any part differs, so a changed request is never answered with another outcome', () => {
    const variants = [
      idempotencyIdentity(request(), 'key-2', tenant),
      idempotencyIdentity(request({ method: 'PUT' }), 'key-1', tenant),
      idempotencyIdentity(request({ params: { walletId: 'wlt-2' } }), 'key-1', tenant),
      idempotencyIdentity(request({ route: '/v1/wallets/:walletId' }), 'key-1', tenant),
      idempotencyIdentity(request({ query: { b: '3', a: '1' } }), 'key-1', tenant),
      idempotencyIdentity(request({ body: { amount: 11, toAddress: '0xabc' } }), 'key-1', tenant),
      idempotencyIdentity(request({ body: [1, 2] }), 'key-1', tenant),
      idempotencyIdentity(request({ body: [2, 1] }), 'key-1', tenant),
      idempotencyIdentity(request({ body: undefined }), 'key-1', tenant),
    ];
    expect(new Set([base, ...variants]).size).toBe(variants.length + 1);
  });

  it('falls back to the raw path and sorted query when no route matched', () => {
    const unmatched = (url: string) => idempotencyIdentity({ method: 'POST', url }, 'key-1', tenant);
    expect(unmatched('/v1/nowhere?b=2&a=1')).toBe(unmatched('/v1/nowhere?a=1&b=2'));
    expect(unmatched('/v1/nowhere')).not.toBe(unmatched('/v1/elsewhere'));
  });

  it("never lets one tenant replay another's outcome", () => {
    expect(idempotencyIdentity(request(), 'key-1', { ...tenant, distributorId: 'dst-b' })).not.toBe(base);
    expect(idempotencyIdentity(request(), 'key-1', { ...tenant, environment: 'production' })).not.toBe(base);
  });
});
