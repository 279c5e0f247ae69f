import {
  FEE_FRACTION_ONE,
  programAuthorization,
  programAuthorizationProblems,
} from '@cip/authorizations/contract';
import type { ProgramAuthorization, ProgramRules } from '@cip/shared/contracts';
import { InvalidArgumentError, Option } from 'commander';
import { UsageError } from '../command';
import { nonNegativeInteger } from '../options';

// ---------------------------------------------------------------------------------------------------
// The program's card authorization settings on the command line (`distributors configure`). Units are the
// spec's `fee` object's: integers in 6 implied decimals (value x 1,000,000). The parsers check the form of a
// value; the ranges (100%, 1..30 days, ISO 4217, address checksum) are the contract's
// `programAuthorizationProblems`, the very rules the distributor decider applies.
// ---------------------------------------------------------------------------------------------------

const USD_DECIMALS = 6;
const PERCENT_DECIMALS = 4; // 6 implied decimals of a fraction are 4 decimals of a percent

const notNegative = (value: string) => {
  if (value.trim().startsWith('-')) throw new InvalidArgumentError('Must not be negative.');
};

/** `2%`, `0.25%` or `20000` (6 implied decimals of a fraction): the fraction in 6 implied decimals. */
export function fraction(value: string): number {
  notNegative(value);
  const percent = /^(\d+)(?:\.(\d+))?%$/.exec(value.trim());
  if (percent) {
    const decimals = percent[2] ?? '';
    if (decimals.length > PERCENT_DECIMALS) {
      throw new InvalidArgumentError(
        'Takes at most 4 decimals in a percent (0.0001% is 1 in 6 implied decimals).',
      );
    }
    return Number(percent[1]) * (FEE_FRACTION_ONE / 100) + Number(decimals.padEnd(PERCENT_DECIMALS, '0'));
  }
  if (/^\d+$/.test(value.trim())) return Number(value.trim());
  throw new InvalidArgumentError(
    'Takes a percent (2%, 0.25%) or a whole number in 6 implied decimals (20000 is 2%).',
  );
}

/** `2.50USD` or `2500000` (6 implied decimals of USD): the amount in 6 implied decimals. */
export function usdAmount(value: string): number {
  notNegative(value);
  const usd = /^(\d+)(?:\.(\d+))?\s*USD$/i.exec(value.trim());
  if (usd) {
    const decimals = usd[2] ?? '';
    if (decimals.length > USD_DECIMALS) throw new InvalidArgumentError('Takes at most 6 decimals of USD.');
    return Number(`${usd[1]}${decimals.padEnd(USD_DECIMALS, '0')}`);
  }
  if (/^\d+$/.test(value.trim())) return Number(value.trim());
  throw new InvalidArgumentError(
    'Takes USD (2.50USD) or a whole number in 6 implied decimals (2500000 is 2.50 USD).',
  );
}

/** `--fx-rate EUR=1.08` (repeatable; `EUR=none` removes the rate): the rates given so far. */
export function fxRate(
  value: string,
  previous: Record<string, string | null> = {},
): Record<string, string | null> {
  const match = /^([A-Za-z]+)=(.*)$/.exec(value.trim());
  if (!match) {
    throw new InvalidArgumentError(
      'Takes CUR=rate, USD per unit of CUR (EUR=1.08), or CUR=none to remove it.',
    );
  }
  const currency = match[1].toUpperCase();
  const rate = match[2].trim();
  if (rate !== 'none') {
    notNegative(rate);
    const decimal = /^\d+(?:\.(\d+))?$/.exec(rate);
    if (!decimal)
      throw new InvalidArgumentError(`The rate of ${currency} is a decimal number of USD, such as 1.08.`);
    if ((decimal[1] ?? '').length > 12)
      throw new InvalidArgumentError('Takes at most 12 decimals in a rate.');
  }
  return { ...previous, [currency]: rate === 'none' ? null : rate };
}

/** `--settlement-address 0x...` or `none` (kept as text: commander turns an option's null into ''). */
const address = (value: string): string => value.trim();

export const authorizationOptions = (): Option[] => [
  new Option('--fee-fx <percent|fraction>', 'fx fee on non-USD merchant amounts: 2% or 20000').argParser(
    fraction,
  ),
  new Option('--fee-atm <USD|amount>', 'fee per cash withdrawal (MCC 6011): 2.50USD or 2500000').argParser(
    usdAmount,
  ),
  new Option('--fee-auth <USD|amount>', 'fee per authorization: 0.10USD or 100000').argParser(usdAmount),
  new Option(
    '--fx-rate <CUR=rate>',
    'USD per unit of a merchant currency, repeatable; CUR=none removes it',
  ).argParser(fxRate),
  new Option(
    '--clearing-tolerance <percent|fraction>',
    'how far clearings may exceed the authorization (tips)',
  ).argParser(fraction),
  new Option('--hold-expiry-days <days>', 'days an uncleared hold is kept (1 to 30)').argParser(
    nonNegativeInteger,
  ),
  new Option('--settlement-address <0x...|none>', 'EVM address cleared amounts settle to').argParser(address),
];

export const AUTHORIZATION_HELP = `
Authorization settings (spec part 6 \`fee\` units: integers in 6 implied decimals, value x 1,000,000):
  --fee-fx and --clearing-tolerance are fractions: 2% = 20000; the fx fee is that fraction of the
  converted USD amount, rounded half up to the cent. --fee-atm and --fee-auth are USD amounts:
  2.50USD = 2500000, charged as they are. Rates are USD per one unit of the merchant currency (ISO 4217).
  One set of settings per program, for sandbox and production alike; a change applies to the next
  authorization, without a restart. A program never configured has the defaults (fx 2%, no atm or auth
  fee, the sandbox's test rates EUR 1.08 GBP 1.27 CHF 1.13 CAD 0.73 JPY 0.0067, 20% tolerance, 7 days).
`;

export interface AuthorizationFlags {
  feeFx?: number;
  feeAtm?: number;
  feeAuth?: number;
  fxRate?: Record<string, string | null>;
  clearingTolerance?: number;
  holdExpiryDays?: number;
  /** An address, or `none` to remove it. */
  settlementAddress?: string;
}

/**
 * The program's settings with the flags applied (null when no flag was given), refused as a usage error
 * with every problem named when the result is not valid.
 */
export function changedAuthorization(
  program: ProgramRules,
  flags: AuthorizationFlags,
): ProgramAuthorization | null {
  const given = Object.values(flags).some((value) => value !== undefined);
  if (!given) return null;
  const current = programAuthorization(program);
  const fxRates: Record<string, string> = { ...current.fxRates };
  for (const [currency, rate] of Object.entries(flags.fxRate ?? {})) {
    if (rate === null) delete fxRates[currency];
    else fxRates[currency] = rate;
  }
  const next: ProgramAuthorization = {
    fees: {
      fx: flags.feeFx ?? current.fees.fx,
      atm: flags.feeAtm ?? current.fees.atm,
      auth: flags.feeAuth ?? current.fees.auth,
    },
    fxRates,
    clearingTolerance: flags.clearingTolerance ?? current.clearingTolerance,
    holdExpiryDays: flags.holdExpiryDays ?? current.holdExpiryDays,
    settlementAddress:
      flags.settlementAddress === undefined
        ? current.settlementAddress
        : flags.settlementAddress === 'none'
          ? null
          : flags.settlementAddress,
  };
  const problems = programAuthorizationProblems(next);
  if (problems.length > 0) {
    throw new UsageError(
      problems.map((p) => `${FLAG_OF[p.field.split('.')[0]] ?? p.field}: ${p.message}`).join('; '),
    );
  }
  return next;
}

/** The flag that sets each field, to name it in a usage error. */
const FLAG_OF: Record<string, string> = {
  fees: '--fee-fx/--fee-atm/--fee-auth',
  fxRates: '--fx-rate',
  clearingTolerance: '--clearing-tolerance',
  holdExpiryDays: '--hold-expiry-days',
  settlementAddress: '--settlement-address',
};

const percentText = (value: number) => `${value / (FEE_FRACTION_ONE / 100)}%`;
/** Exact: 2500000 -> "2.50 USD", 1 -> "0.000001 USD". */
function usdText(value: number): string {
  if (value === 0) return 'none';
  const digits = String(value).padStart(USD_DECIMALS + 1, '0');
  const decimals = digits.slice(-USD_DECIMALS).replace(/0+$/, '').padEnd(2, '0');
  return `${digits.slice(0, -USD_DECIMALS)}.${decimals} USD (${value})`;
}

/** The settings as `distributors show` and `configure` print them. */
export function authorizationLines(program: ProgramRules): string[] {
  const settings = programAuthorization(program);
  const rates = Object.entries(settings.fxRates).map(([currency, rate]) => `${currency} ${rate}`);
  return [
    `  authorization settings${program.authorization ? '' : ' (defaults)'}`,
    `    fee fx        ${settings.fees.fx === 0 ? 'none' : `${percentText(settings.fees.fx)} (${settings.fees.fx})`}`,
    `    fee atm       ${usdText(settings.fees.atm)}`,
    `    fee auth      ${usdText(settings.fees.auth)}`,
    `    fx rates      ${rates.length ? `${rates.join(', ')} (USD per unit)` : 'none: USD only'}`,
    `    tolerance     ${percentText(settings.clearingTolerance)} (${settings.clearingTolerance})`,
    `    hold expiry   ${settings.holdExpiryDays} days`,
    `    settlement    ${settings.settlementAddress ?? 'not set'}`,
  ];
}
