import { permits, userStatusPermission } from './staff';

describe("who may change a user's status (userStatusPermission)", () => {
  it.each([
    ['active', 'frozen', 'support'],
    ['frozen', 'active', 'support'],
    ['active', 'disabled', 'compliance'],
    ['frozen', 'revoked', 'compliance'],
    ['disabled', 'active', 'compliance'],
    ['revoked', 'active', 'compliance'],
  ] as const)('a %s user made %s needs %s', (from, to, needs) => {
    expect(userStatusPermission(from, to)).toBe(needs);
  });

  it('support may not disable, compliance may not freeze, an admin may do both, a viewer neither', () => {
    expect(permits('support', userStatusPermission('active', 'disabled'))).toBe(false);
    expect(permits('compliance', userStatusPermission('active', 'frozen'))).toBe(false);
    expect(permits('admin', userStatusPermission('active', 'disabled'))).toBe(true);
    expect(permits('viewer', userStatusPermission('active', 'frozen'))).toBe(false);
  });
});
