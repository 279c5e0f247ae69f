import { isIso4217Code, type ProgramAuthorization, type ProgramRules } from '@cip/shared/contracts';
import { MAX_MINOR_UNITS } from '@cip/wallets/contract';
// ox's address module, not viem's index: a contract every service loads (see shared/runtime config).
import * as Address from 'ox/Address';
import { CARD_CURRENCY, FEE_IMPLIED_DECIMALS } from './authorization.types';

/** 100% in 6 implied decimals: the bound of the `fx` fee and of the clearing tolerance. */
export const FEE_FRACTION_ONE = 10 ** FEE_IMPLIED_DECIMALS;
/** The largest fee amount (`atm`, `auth`): the platform's bound (fees in 6 implied decimals are wallet minor units). */
export const MAX_FEE_AMOUNT = MAX_MINOR_UNITS;
export const HOLD_EXPIRY_DAYS_RANGE = { min: 1, max: 30 } as const;
/** An fx rate as a program sets it: a decimal string of at most 9 integer and 12 fraction digits. */
export const FX_RATE_PATTERN = /^(\d{1,9})(?:\.(\d{1,12}))?$/;

/**
 * The sandbox's fixed test rates, USD per unit: one for every currency the simulated acquirers accept besides
 * USD (`SIMULATED_CURRENCIES` of the simulator; a spec of the simulator checks that none is missing).
 * Plausible round figures, not market rates: the platform has no rate feed, and a program that needs real
 * rates sets them (`cli distributors configure --fx-rate EUR=1.0856`).
 */
export const SANDBOX_TEST_FX_RATES: Readonly<Record<string, string>> = Object.freeze({
  AED: '0.2723',
  AUD: '0.66',
  BHD: '2.6525',
  BRL: '0.18',
  CAD: '0.73',
  CHF: '1.13',
  CNY: '0.138',
  CZK: '0.043',
  DKK: '0.145',
  EUR: '1.08',
  GBP: '1.27',
  HKD: '0.128',
  HUF: '0.0027',
  INR: '0.012',
  JPY: '0.0067',
  KRW: '0.00074',
  KWD: '3.25',
  MXN: '0.055',
  NOK: '0.092',
  NZD: '0.6',
  PLN: '0.25',
  SEK: '0.095',
  SGD: '0.74',
  TRY: '0.03',
  ZAR: '0.054',
});

/**
 * What a program without authorization settings gets (every distributor configured before they existed):
 * the sandbox's fixed test rates (USD per unit, `SANDBOX_TEST_FX_RATES`), a 2% fx fee, no ATM or
 * authorization fee, clearings up to 20% above the authorization (tips), holds kept 7 days (API-DECISIONS),
 * no settlement address yet.
 */
export const DEFAULT_PROGRAM_AUTHORIZATION: Readonly<ProgramAuthorization> = Object.freeze({
  fees: Object.freeze({ fx: 20_000, atm: 0, auth: 0 }),
  fxRates: SANDBOX_TEST_FX_RATES,
  clearingTolerance: 200_000,
  holdExpiryDays: 7,
  settlementAddress: null,
});

/** The authorization settings a program has now: its own, or the defaults. */
export const programAuthorization = (program: Pick<ProgramRules, 'authorization'>): ProgramAuthorization =>
  program.authorization ?? DEFAULT_PROGRAM_AUTHORIZATION;

const isWhole = (value: unknown, max: number): boolean =>
  typeof value === 'number' && Number.isSafeInteger(value) && value >= 0 && value <= max;

/**
 * What is wrong with a program's authorization settings, one `{field, message}` per problem (empty: valid).
 * The distributor decider refuses a program with any; the CLI shows them as usage errors.
 */
export function programAuthorizationProblems(
  settings: ProgramAuthorization,
): { field: string; message: string }[] {
  const problems: { field: string; message: string }[] = [];
  const problem = (field: string, message: string) => problems.push({ field, message });
  const { fees, fxRates, clearingTolerance, holdExpiryDays, settlementAddress } = settings;
  if (!isWhole(fees?.fx, FEE_FRACTION_ONE)) {
    problem('fees.fx', 'must be a whole number in 6 implied decimals from 0 to 1000000 (100%)');
  }
  for (const kind of ['atm', 'auth'] as const) {
    if (!isWhole(fees?.[kind], MAX_FEE_AMOUNT)) {
      problem(
        `fees.${kind}`,
        `must be a whole number of USD in 6 implied decimals from 0 to ${MAX_FEE_AMOUNT}`,
      );
    }
  }
  for (const [currency, rate] of Object.entries(fxRates ?? {})) {
    if (currency === CARD_CURRENCY) {
      problem(`fxRates.${currency}`, `${CARD_CURRENCY} is the card currency: it needs no rate`);
    } else if (!isIso4217Code(currency)) {
      problem(`fxRates.${currency}`, `${currency} is not an ISO 4217 currency code`);
    } else if (typeof rate !== 'string' || !FX_RATE_PATTERN.test(rate)) {
      problem(`fxRates.${currency}`, 'must be a decimal of at most 9 digits and 12 decimals (USD per unit)');
    } else if (/^[0.]+$/.test(rate)) {
      problem(`fxRates.${currency}`, 'must be greater than 0');
    }
  }
  if (!isWhole(clearingTolerance, FEE_FRACTION_ONE)) {
    problem('clearingTolerance', 'must be a whole number in 6 implied decimals from 0 to 1000000 (100%)');
  }
  const { min, max } = HOLD_EXPIRY_DAYS_RANGE;
  if (!(Number.isInteger(holdExpiryDays) && holdExpiryDays >= min && holdExpiryDays <= max)) {
    problem('holdExpiryDays', `must be a whole number of days from ${min} to ${max}`);
  }
  if (
    settlementAddress !== null &&
    !(typeof settlementAddress === 'string' && Address.validate(settlementAddress))
  ) {
    problem(
      'settlementAddress',
      'must be an EVM address: 0x and 40 hex digits, EIP-55 checksummed or one case',
    );
  }
  return problems;
}

/** The settlement address as stored: checksummed (EIP-55), so one address has one spelling. */
export const normalizeSettlementAddress = (address: string | null): string | null =>
  address === null ? null : Address.checksum(address);
