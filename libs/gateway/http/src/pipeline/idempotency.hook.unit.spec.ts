import type { Tenant } from '@cip/shared/contracts';
import { idempotencyIdentity } from './idempotency.hook';

const tenant: Tenant = { distributorId: 'dst-a', environment: 'sandbox' };
const request = (overrides: Partial<{ url: string; method: string; body: unknown }> = {}) => ({
  url: '/v1/wallets/wlt-1/withdrawals?b=2&a=1',
  method: 'POST',
  body: { amount: 10, toAddress: '0xabc', memo: { x: 1, y: [1, 2] } },
  ...overrides,
});

describe('the identity of an idempotent request (key, method, path, query, body, tenant)', () => {
  const base = idempotencyIdentity(request(), 'key-1', tenant);

  it('is the same for the same request, whatever the order of query parameters and JSON keys', () => {
    expect(idempotencyIdentity(request(), 'key-1', tenant)).toBe(base);
    const reordered = request({
      url: '/v1/wallets/wlt-1/withdrawals?a=1&b=2',
      body: { memo: { y: [1, 2], x: 1 }, toAddress: '0xabc', amount: 10 },
    });
    expect(idempotencyIdentity(reordered, 'key-1', tenant)).toBe(base);
  });

  it('differs when any part differs, so a changed request is never answered with another outcome', () => {
    const variants = [
      idempotencyIdentity(request(), 'key-2', tenant),
      idempotencyIdentity(request({ method: 'PUT' }), 'key-1', tenant),
      idempotencyIdentity(request({ url: '/v1/wallets/wlt-2/withdrawals?b=2&a=1' }), 'key-1', tenant),
      idempotencyIdentity(request({ url: '/v1/wallets/wlt-1/withdrawals?b=3&a=1' }), 'key-1', tenant),
      idempotencyIdentity(request({ body: { amount: 11, toAddress: '0xabc' } }), 'key-1', tenant),
      idempotencyIdentity(request({ body: [1, 2] }), 'key-1', tenant),
      idempotencyIdentity(request({ body: [2, 1] }), 'key-1', tenant),
      idempotencyIdentity(request({ body: undefined }), 'key-1', tenant),
    ];
    expect(new Set([base, ...variants]).size).toBe(variants.length + 1);
  });

  it("never lets one tenant replay another's outcome", () => {
    expect(idempotencyIdentity(request(), 'key-1', { ...tenant, distributorId: 'dst-b' })).not.toBe(base);
    expect(idempotencyIdentity(request(), 'key-1', { ...tenant, environment: 'production' })).not.toBe(base);
  });
});
