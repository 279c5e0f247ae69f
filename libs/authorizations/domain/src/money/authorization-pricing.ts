import {
  CARD_CURRENCY,
  FEE_IMPLIED_DECIMALS,
  type DeclineDetail,
  type Fee,
  type Merchant,
} from '@cip/authorizations/contract';
import { fromMinorUnits, MAX_MINOR_UNITS, USDC_DECIMALS } from '@cip/wallets/contract';
import { currencyExponent, isCurrencyCode } from './currencies';

// ---------------------------------------------------------------------------------------------------
// What an authorization costs the wallet, to the cent. Every figure is an integer: the merchant amount in
// the minor units of its currency (as the network sends it), the wallet amounts in the platform's minor
// units (10^-6 USD: 1 USDC settles 1 USD), the fees in 6 implied decimals. The one division (a foreign
// amount at the program's rate, or the fx fee) happens on bigints and is rounded once, half up, to the US
// cent, because:
// - `currency` of the authorization is USD (ISO 4217 exponent 2), and the network clears the cardholder
//   billing amount (ISO 8583 field 6) in cents: holding sub-cent figures would leave a residue at clearing;
// - half up is the card schemes' rounding of converted amounts and what cardholder statements show; every
//   amount here is positive, so it is also half away from zero, and the error is at most half a cent per
//   authorization, never accumulated (each figure is rounded once, from exact integers).
// ---------------------------------------------------------------------------------------------------

/** 10^-6 USD per US cent: converted amounts and the fx fee are whole cents. */
export const MINOR_PER_CENT = 10 ** (USDC_DECIMALS - 2);
const FEE_TO_MINOR = 10 ** (USDC_DECIMALS - FEE_IMPLIED_DECIMALS);
if (!Number.isInteger(FEE_TO_MINOR)) {
  throw new Error('Fees in 6 implied decimals must be whole minor units of the wallet');
}
/** The MCC of automated cash disbursements (ISO 18245): the `atm` fee applies to these. */
export const ATM_MCC = '6011';
/** The program's fx rate is a decimal string of at most 9 integer and 12 fraction digits. */
const RATE = /^(\d{1,9})(?:\.(\d{1,12}))?$/;

/**
 * A program's pricing (set per program, with the distributor). `fxRates`: USD per one unit of a merchant
 * currency, as a decimal string (`{EUR: "1.0856"}`); a currency without a rate cannot be authorized. Fees
 * in 6 implied decimals: `fxRate` is a fraction of the converted amount (`20000` = 2%), `atm` and `auth`
 * are amounts (`2500000` = 2.50 USD).
 */
export interface ProgramPricing {
  fxRates: Readonly<Record<string, string>>;
  fees: { fxRate?: number; atm?: number; auth?: number };
}

/** What the network asks for: the merchant amount in minor units of `merchantCurrency`. */
export interface MerchantCharge {
  merchant: Merchant;
  merchantAmount: number;
  merchantCurrency: string;
}

export interface PricedAuthorization {
  /** Minor units of the wallet (whole cents). */
  amount: number;
  /** The original amount as the spec's decimal string (`"1234.50"`). */
  merchantAmount: string;
  merchantCurrency: string;
  /** Each fee present only when charged, in 6 implied decimals. */
  fee: Fee;
  /** The fees in minor units of the wallet. */
  feeTotal: number;
  /** The rate applied (null for USD). */
  fxRate: string | null;
}

export type Pricing =
  ({ ok: true } & PricedAuthorization) | { ok: false; detail: string; declineDetail?: DeclineDetail };

export interface PricingOptions {
  /** Charge the per-authorization fee (not on a force-posted clearing nobody asked to authorize). */
  authFee: boolean;
  /** Charge no fee at all (a refund gives money back). A zero amount is never charged either. */
  noFees?: boolean;
}

/** Rounds `numerator / denominator` half up; both positive (or a zero numerator). */
export function divideRoundHalfUp(numerator: bigint, denominator: bigint): bigint {
  return (numerator * 2n + denominator) / (denominator * 2n);
}

/** Minor units of a currency as its decimal text: 123450 EUR -> "1234.50", 1500 JPY -> "1500". */
export function merchantAmountText(minor: number, currency: string): string {
  const exponent = currencyExponent(currency);
  const digits = String(minor).padStart(exponent + 1, '0');
  return exponent === 0 ? digits : `${digits.slice(0, -exponent)}.${digits.slice(-exponent)}`;
}

/** The decimal text of an amount back to minor units (exactly `exponent` decimals, or none when 0). */
export function parseMerchantAmount(text: string, currency: string): number {
  const exponent = currencyExponent(currency);
  const pattern = exponent === 0 ? /^(\d+)$/ : new RegExp(`^(\\d+)\\.(\\d{${exponent}})$`);
  const match = pattern.exec(text);
  if (!match) throw new Error(`${text} is not an amount of ${currency}`);
  return Number(`${match[1]}${match[2] ?? ''}`);
}

/** A fee in 6 implied decimals as minor units of the wallet (the same unit while USDC has 6 decimals). */
export const feeToWalletMinor = (fee: number): number => fee * FEE_TO_MINOR;

/** Minor units of the wallet as the API's JSON number of USD (`amount`, spec part 6). */
export const usdUnits = (minor: number): number => fromMinorUnits(minor);

/**
 * A merchant amount in USD minor units of the wallet: USD exactly (cents times 10^4), another currency at
 * `rate` (USD per unit) rounded half up to the cent. Null when the result exceeds the platform's bound.
 */
export function convertToWalletMinor(
  merchantMinor: number,
  currency: string,
  rate: string | null,
): number | null {
  const exponent = currencyExponent(currency);
  if (currency === CARD_CURRENCY) {
    const minor = merchantMinor * MINOR_PER_CENT;
    return minor <= MAX_MINOR_UNITS ? minor : null;
  }
  const match = rate === null ? null : RATE.exec(rate);
  if (!match) throw new Error(`Not an fx rate: ${rate}`);
  const fraction = match[2] ?? '';
  const rateScaled = BigInt(`${match[1]}${fraction}`);
  // cents = minor * rate * 10^2 / 10^exponent, with rate = rateScaled / 10^fraction.length.
  const cents = divideRoundHalfUp(
    BigInt(merchantMinor) * rateScaled * 100n,
    10n ** BigInt(fraction.length + exponent),
  );
  const minor = cents * BigInt(MINOR_PER_CENT);
  return minor <= BigInt(MAX_MINOR_UNITS) ? Number(minor) : null;
}

/**
 * The fx fee, in 6 implied decimals, on a converted amount (wallet minor units): `fxRate` (6 implied
 * decimals) of it, rounded half up to the cent.
 */
export function fxFee(amountMinor: number, fxRate: number): number {
  const cents = divideRoundHalfUp(
    BigInt(amountMinor) * BigInt(fxRate),
    10n ** BigInt(FEE_IMPLIED_DECIMALS) * BigInt(MINOR_PER_CENT),
  );
  return Number(cents) * 10 ** (FEE_IMPLIED_DECIMALS - 2);
}

/**
 * The wallet amount, the spec's `merchantAmount` string and the fees of a charge under a program's pricing;
 * `ok: false` (with why) when it cannot be priced: a currency without a configured rate, a malformed
 * amount, or a total beyond the platform's bound.
 */
export function priceAuthorization(
  charge: MerchantCharge,
  pricing: ProgramPricing,
  options: PricingOptions,
): Pricing {
  const { merchantAmount, merchantCurrency } = charge;
  requireProgramFees(pricing);
  if (!isCurrencyCode(merchantCurrency)) {
    return {
      ok: false,
      detail: `${String(merchantCurrency)} is not an ISO 4217 currency code`,
      declineDetail: 'currency_not_supported',
    };
  }
  if (!Number.isSafeInteger(merchantAmount) || merchantAmount < 0) {
    return { ok: false, detail: `merchant amount ${merchantAmount} is not a whole number of minor units` };
  }
  const foreign = merchantCurrency !== CARD_CURRENCY;
  const fxRate = foreign ? (pricing.fxRates[merchantCurrency] ?? null) : null;
  if (foreign && (fxRate === null || !RATE.test(fxRate) || /^[0.]+$/.test(fxRate))) {
    return {
      ok: false,
      detail: `the program has no fx rate for ${merchantCurrency}`,
      declineDetail: 'currency_not_supported',
    };
  }
  const amount = convertToWalletMinor(merchantAmount, merchantCurrency, fxRate);
  if (amount === null)
    return { ok: false, detail: 'the amount exceeds the largest amount the platform holds' };

  const { fees } = pricing;
  const fee: Fee = {};
  // A zero amount (an account verification) moves no money and is charged nothing.
  if (!options.noFees && amount > 0) {
    if (foreign && fees.fxRate) fee.fx = fxFee(amount, fees.fxRate);
    if (charge.merchant.mcc === ATM_MCC && fees.atm) fee.atm = fees.atm;
    if (options.authFee && fees.auth) fee.auth = fees.auth;
  }
  for (const kind of Object.keys(fee) as (keyof Fee)[]) if (fee[kind] === 0) delete fee[kind];
  const feeTotal = feeToWalletMinor((fee.fx ?? 0) + (fee.atm ?? 0) + (fee.auth ?? 0));
  if (amount + feeTotal > MAX_MINOR_UNITS) {
    return { ok: false, detail: 'the amount and fees exceed the largest amount the platform holds' };
  }
  return {
    ok: true,
    amount,
    merchantAmount: merchantAmountText(merchantAmount, merchantCurrency),
    merchantCurrency,
    fee,
    feeTotal,
    fxRate,
  };
}

/**
 * The program's fees are configuration, not input: one that is not a whole number within the platform's
 * bound is a misconfiguration, and failing loudly beats charging a wrong fee on every payment.
 */
function requireProgramFees({ fees }: ProgramPricing): void {
  for (const [kind, value] of Object.entries(fees)) {
    if (value !== undefined && !(Number.isSafeInteger(value) && value >= 0 && value <= MAX_MINOR_UNITS)) {
      throw new Error(`Program fee ${kind} must be a whole number in 6 implied decimals, not ${value}`);
    }
  }
}
