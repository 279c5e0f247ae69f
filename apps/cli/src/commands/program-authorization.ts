import { FEE_FRACTION_ONE, programAuthorization } from '@cip/authorizations/contract';
import {
  type AuthorizationChanges,
  changedAuthorization as applyAuthorizationChanges,
  parseFraction,
  parseFxRate,
  parseUsdAmount,
  ProgramSettingError,
  ProgramSettingsInvalid,
} from '@cip/distributors/contract';
import type { ProgramAuthorization, ProgramRules } from '@cip/shared/contracts';
import { InvalidArgumentError, Option } from 'commander';
import { UsageError } from '../command';
import { nonNegativeInteger } from '../options';

// ---------------------------------------------------------------------------------------------------
// The program's card authorization settings on the command line (`distributors configure`). The parsing and
// the changes are the distributors contract's (`program-settings.ts`), shared with the operator API; here
// they become flags and usage errors.
// ---------------------------------------------------------------------------------------------------

const USD_DECIMALS = 6;

/** A parser of the distributors contract as a commander option parser: its error is the usage message. */
export function optionParser<T>(parse: (value: string, previous?: T) => T) {
  return (value: string, previous?: T): T => {
    try {
      return parse(value, previous);
    } catch (error) {
      if (error instanceof ProgramSettingError) throw new InvalidArgumentError(error.message);
      throw error;
    }
  };
}

const fraction = optionParser(parseFraction);
const usdAmount = optionParser(parseUsdAmount);
const fxRate = optionParser((value: string, previous?: Record<string, string | null>) =>
  parseFxRate(value, previous),
);

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

export type AuthorizationFlags = AuthorizationChanges;

/**
 * The program's settings with the flags applied (null when no flag was given), refused as a usage error
 * with every problem named when the result is not valid.
 */
export function changedAuthorization(
  program: ProgramRules,
  flags: AuthorizationFlags,
): ProgramAuthorization | null {
  try {
    return applyAuthorizationChanges(program, flags);
  } catch (error) {
    if (!(error instanceof ProgramSettingsInvalid)) throw error;
    throw new UsageError(
      error.problems.map((p) => `${FLAG_OF[p.field.split('.')[0]] ?? p.field}: ${p.message}`).join('; '),
    );
  }
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
