import { Decider, DomainError, domainEventReader, type DomainEvent } from '@cip/shared/contracts';
import { AUTHENTICATION_VALUE_VALIDITY_DAYS, type AuthenticationValueRefusal } from '@cip/three-ds/contract';
import { createHash, createHmac, timingSafeEqual } from 'node:crypto';

// ---------------------------------------------------------------------------------------------------
// The authentication value (CAVV / AAV) the ACS issues with a `Y`, as a real ACS does: a MAC over the
// authenticated transaction under a key the issuer keeps (HMAC-SHA256, truncated to 20 bytes, base64: the
// 28 characters of EMV's authenticationValue). The issuer recomputes it from the authorization's own facts
// (card id, amount, currency, merchant) and what it recorded at issue (acsTransID, time, ECI), so it verifies
// the value without keeping the PAN or the purchase. Hand-written: the schemes' CAVV algorithms (Visa CVV
// with ATN, Mastercard SPA2) are licensed specifications, and an HMAC is what they amount to here.
// ---------------------------------------------------------------------------------------------------

/** What the MAC is computed over. `amount` and `currency` are null for a card verification. */
export interface AuthenticatedTransaction {
  cardId: string;
  /** Decimal text (`"12.50"`). */
  amount: string | null;
  currency: string | null;
  merchantName: string;
  acsTransID: string;
  /** When the ACS issued the value, `YYYY-MM-DDTHH:mm:ss.sssZ`. */
  issuedAt: string;
}

const VALUE_BYTES = 20;

/**
 * The merchant name as both ends see it: DE-043 carries 25 printable ASCII characters (accents dropped, cut),
 * the AReq the full name; compared without case and surrounding spaces.
 */
export function merchantKeyOf(name: string): string {
  return name
    .normalize('NFKD')
    .replace(/[^\x20-\x7e]/g, '')
    .slice(0, 25)
    .trim()
    .toUpperCase();
}

/** A decimal amount without insignificant zeros (`"012.50"` and `"12.5"` are one amount). */
export function amountKeyOf(amount: string | null): string {
  if (amount === null) return '';
  const [whole, fraction = ''] = amount.split('.');
  const digits = whole.replace(/^0+(?=\d)/, '');
  const decimals = fraction.replace(/0+$/, '');
  return decimals ? `${digits}.${decimals}` : digits;
}

/** The authentication value of a transaction under `key`: 28 base64 characters. */
export function authenticationValueOf(key: Buffer, tx: AuthenticatedTransaction): string {
  const message = JSON.stringify([
    'cip-cavv-1',
    tx.cardId,
    amountKeyOf(tx.amount),
    tx.currency ?? '',
    merchantKeyOf(tx.merchantName),
    tx.acsTransID,
    tx.issuedAt,
  ]);
  return createHmac('sha256', key).update(message).digest().subarray(0, VALUE_BYTES).toString('base64');
}

/** Whether `value` is the MAC of `tx` (compared in constant time). */
export function authenticationValueMatches(
  key: Buffer,
  tx: AuthenticatedTransaction,
  value: string,
): boolean {
  const expected = Buffer.from(authenticationValueOf(key, tx));
  const presented = Buffer.from(value);
  return presented.length === expected.length && timingSafeEqual(presented, expected);
}

/**
 * The stream of an issued value: `tav-` + the first 32 hex digits of its SHA-256, so the issuer finds what
 * it recorded at issue from the value alone (the value itself is not in the id).
 */
export const authenticationValueStreamOf = (value: string): string =>
  `${AUTHENTICATION_VALUES_TOPIC}-${createHash('sha256').update(value).digest('hex').slice(0, 32)}`;

/** The topic (stream category) of issued values: read by no projection, only by the verification. */
export const AUTHENTICATION_VALUES_TOPIC = 'tav';

// ---------------------------------------------------------------------------------------------------
// An issued value's life: issued (before the ACS hands it out), then used once by an authorization.
// ---------------------------------------------------------------------------------------------------

export type AuthenticationValueIssued = DomainEvent<
  'AuthenticationValueIssued',
  { acsTransID: string; distributorId: string; eci: string; issuedAt: string }
>;
export type AuthenticationValueUsed = DomainEvent<
  'AuthenticationValueUsed',
  { authorizationId: string; at: string }
>;
export type AuthenticationValueEvent = AuthenticationValueIssued | AuthenticationValueUsed;

export type IssueAuthenticationValue = {
  type: 'IssueAuthenticationValue';
  data: AuthenticationValueIssued['data'];
};
export type UseAuthenticationValue = {
  type: 'UseAuthenticationValue';
  data: { authorizationId: string; now: string };
};
export type AuthenticationValueCommand = IssueAuthenticationValue | UseAuthenticationValue;

export type IssuedAuthenticationValue = AuthenticationValueIssued['data'] & { usedBy: string | null };
export type AuthenticationValueState =
  { status: 'absent' } | ({ status: 'issued' } & IssuedAuthenticationValue);

/**
 * Why an issued value cannot be used by `authorizationId` at `now` (null: it can). The MAC is checked by
 * the service (it holds the key); this is the rest: age and single use. The same authorization using it
 * again (a retried 0100) is not a reuse.
 */
export function authenticationValueRefusal(
  state: AuthenticationValueState,
  authorizationId: string,
  now: string,
): AuthenticationValueRefusal | null {
  if (state.status === 'absent') return 'unknown';
  if (state.usedBy !== null && state.usedBy !== authorizationId) return 'reused';
  const ageMs = Date.parse(now) - Date.parse(state.issuedAt);
  if (ageMs > AUTHENTICATION_VALUE_VALIDITY_DAYS * 24 * 3600 * 1000) return 'expired';
  return null;
}

function decide(
  command: AuthenticationValueCommand,
  state: AuthenticationValueState,
): AuthenticationValueEvent[] {
  if (command.type === 'IssueAuthenticationValue') {
    if (state.status !== 'absent') throw new DomainError('invalid_state_transition', 'The value was issued');
    return [{ type: 'AuthenticationValueIssued', data: command.data }];
  }
  const { authorizationId, now } = command.data;
  const refusal = authenticationValueRefusal(state, authorizationId, now);
  if (refusal) {
    throw new DomainError('invalid_state_transition', `The authentication value cannot be used: ${refusal}`);
  }
  if (state.status === 'issued' && state.usedBy === authorizationId) return [];
  return [{ type: 'AuthenticationValueUsed', data: { authorizationId, at: now } }];
}

function evolve(state: AuthenticationValueState, event: AuthenticationValueEvent): AuthenticationValueState {
  if (event.type === 'AuthenticationValueIssued') return { status: 'issued', ...event.data, usedBy: null };
  if (state.status === 'absent') return state;
  return { ...state, usedBy: event.data.authorizationId };
}

export const authenticationValueEvents = domainEventReader<AuthenticationValueEvent>();

export const authenticationValueDecider: Decider<
  AuthenticationValueCommand,
  AuthenticationValueEvent,
  AuthenticationValueState
> = {
  decide,
  evolve,
  initialState: () => ({ status: 'absent' }),
  events: authenticationValueEvents,
};
