import { DomainError } from '@cip/shared/contracts';
import {
  amountKeyOf,
  authenticationValueDecider,
  authenticationValueMatches,
  authenticationValueOf,
  authenticationValueRefusal,
  authenticationValueStreamOf,
  merchantKeyOf,
  type AuthenticatedTransaction,
  type AuthenticationValueState,
} from './authentication-value';

const key = Buffer.alloc(32, 7);
const tx: AuthenticatedTransaction = {
  cardId: 'crd-7c9e6679-7425-40de-944b-e07fc1f90ae7',
  amount: '25.00',
  currency: 'USD',
  merchantName: 'Corner Cafe',
  acsTransID: '3f2a7d9e-1b4c-4e8f-9a0b-5c6d7e8f9a0b',
  issuedAt: '2026-11-23T16:00:00.000Z',
};

describe('the authentication value (CAVV) MAC', () => {
  it('is 28 base64 characters (20 bytes), the same for the same transaction and key', () => {
    const value = authenticationValueOf(key, tx);
    expect(value).toMatch(/^[A-Za-z0-9+/]{27}=$/);
    expect(Buffer.from(value, 'base64')).toHaveLength(20);
    expect(authenticationValueOf(key, { ...tx })).toBe(value);
    expect(authenticationValueMatches(key, tx, value)).toBe(true);
  });

  it.each([
    ['another card', { cardId: 'crd-00000000-0000-4000-8000-000000000000' }],
    ['another amount', { amount: '25.01' }],
    ['another currency', { currency: 'EUR' }],
    ['another merchant', { merchantName: 'Other Shop' }],
    ['another ACS transaction', { acsTransID: '00000000-0000-4000-8000-000000000000' }],
    ['another issue time', { issuedAt: '2026-11-23T16:00:00.001Z' }],
  ])('does not verify for %s', (_what, change) => {
    const value = authenticationValueOf(key, tx);
    expect(authenticationValueMatches(key, { ...tx, ...change }, value)).toBe(false);
  });

  it('does not verify under another key, nor a tampered or malformed value', () => {
    const value = authenticationValueOf(key, tx);
    expect(authenticationValueMatches(Buffer.alloc(32, 8), tx, value)).toBe(false);
    const tampered = `${value[0] === 'A' ? 'B' : 'A'}${value.slice(1)}`;
    expect(authenticationValueMatches(key, tx, tampered)).toBe(false);
    expect(authenticationValueMatches(key, tx, 'short')).toBe(false);
  });

  it('reads the merchant as DE-043 carries it and amounts without insignificant zeros', () => {
    const value = authenticationValueOf(key, { ...tx, merchantName: 'Café de la Gare et du Port Royal' });
    // The 0100's DE-043 name: ASCII, 25 characters, padded.
    expect(
      authenticationValueMatches(key, { ...tx, merchantName: 'CAFE DE LA GARE ET DU POR ' }, value),
    ).toBe(true);
    expect(merchantKeyOf('  corner cafe ')).toBe('CORNER CAFE');
    expect(amountKeyOf('25.00')).toBe('25');
    expect(amountKeyOf('025.50')).toBe('25.5');
    expect(amountKeyOf('1500')).toBe('1500');
    expect(amountKeyOf(null)).toBe('');
    expect(authenticationValueMatches(key, { ...tx, amount: '25' }, authenticationValueOf(key, tx))).toBe(
      true,
    );
  });

  it('names its stream from the value without containing it', () => {
    const value = authenticationValueOf(key, tx);
    const id = authenticationValueStreamOf(value);
    expect(id).toMatch(/^tav-[0-9a-f]{32}$/);
    expect(id).not.toContain(value);
  });
});

describe('an issued value: single use within 30 days', () => {
  const issued = authenticationValueDecider.evolve(authenticationValueDecider.initialState(), {
    type: 'AuthenticationValueIssued',
    data: { acsTransID: tx.acsTransID, distributorId: 'dst-1', eci: '05', issuedAt: tx.issuedAt },
  });
  const use = (state: AuthenticationValueState, authorizationId: string, now = '2026-11-24T00:00:00.000Z') =>
    authenticationValueDecider.decide(
      { type: 'UseAuthenticationValue', data: { authorizationId, now } },
      state,
    );

  it('is used once; the same authorization again (a retried 0100) changes nothing', () => {
    const [used] = use(issued, 'aut-1');
    expect(used).toEqual({
      type: 'AuthenticationValueUsed',
      data: { authorizationId: 'aut-1', at: '2026-11-24T00:00:00.000Z' },
    });
    const spent = authenticationValueDecider.evolve(issued, used);
    expect(use(spent, 'aut-1')).toEqual([]);
    expect(authenticationValueRefusal(spent, 'aut-1', '2026-11-24T00:00:00.000Z')).toBeNull();
  });

  it('refuses another authorization once used', () => {
    const spent = authenticationValueDecider.evolve(issued, use(issued, 'aut-1')[0]);
    expect(authenticationValueRefusal(spent, 'aut-2', '2026-11-24T00:00:00.000Z')).toBe('reused');
    expect(() => use(spent, 'aut-2')).toThrow(DomainError);
  });

  it('refuses a value older than 30 days, and one never issued', () => {
    expect(authenticationValueRefusal(issued, 'aut-1', '2026-12-23T16:00:00.000Z')).toBeNull();
    expect(authenticationValueRefusal(issued, 'aut-1', '2026-12-23T16:00:00.001Z')).toBe('expired');
    expect(authenticationValueRefusal({ status: 'absent' }, 'aut-1', tx.issuedAt)).toBe('unknown');
  });

  it('is issued once', () => {
    expect(() =>
      authenticationValueDecider.decide(
        {
          type: 'IssueAuthenticationValue',
          data: { acsTransID: tx.acsTransID, distributorId: 'dst-1', eci: '05', issuedAt: tx.issuedAt },
        },
        issued,
      ),
    ).toThrow(DomainError);
  });
});
