// ---------------------------------------------------------------------------------------------------
// Amounts of the API are JSON numbers in currency units (`999.99` USD); inside they are integers of minor
// units. Both the judgement (how many decimals an amount has) and the conversion work on the number's decimal
// text, never on a floating-point product: `999.999 * 100` is 99999.90000000001, which `Math.round` turns into
// a confirmed 1000.00. The text is the literal the JSON body carried where the gateway kept it
// (`numberLiteral` of @cip/gateway/http), else the shortest text that reads back as the same double
// (`String(value)`), which is the literal's own value for every literal the gateway lets through (at most 15
// significant digits below 10^9, `request-bodies.ts`).
//
// Decimals are the value's significant ones: trailing zeros are not decimals (`999.990` is 999.99, two
// decimals; `1e2` is 100, none; `1.5e-1` is 0.15, two).
// ---------------------------------------------------------------------------------------------------

const LITERAL = /^(-?)(\d+)(?:\.(\d*))?(?:[eE]([+-]?\d+))?$/;
/** Digits beyond which a number is larger than any amount of any currency (10^30 minor units). */
const MAX_INTEGER_DIGITS = 30;

interface Decimal {
  negative: boolean;
  /** The significant digits, without leading or trailing zeros ('' for zero). */
  digits: string;
  /** The value is `digits * 10^-scale`. */
  scale: number;
}

function readDecimal(text: string): Decimal | null {
  // Callers pass what a body held; a null or an object is not a number, not a crash.
  if (typeof text !== 'string') return null;
  const match = LITERAL.exec(text.trim());
  if (!match) return null;
  const [, sign, whole, fraction = '', exponent = '0'] = match;
  // An exponent beyond any amount (1e999999999) is clamped: its value is far off either way.
  const shift = Math.max(-1000, Math.min(1000, Number(exponent)));
  let digits = `${whole}${fraction}`.replace(/^0+/, '');
  let scale = fraction.length - shift;
  const trailing = /0*$/.exec(digits)?.[0].length ?? 0;
  digits = digits.slice(0, digits.length - trailing);
  scale -= trailing;
  return { negative: sign === '-' && digits !== '', digits, scale };
}

/** The text of a double as the shortest decimal that reads back as it (`String`), the JSON number it was. */
export const decimalTextOf = (value: number): string => String(value);

/**
 * The significant decimals of a decimal number's text (`'999.990'` -> 2, `'1e2'` -> 0, `'1.5e-1'` -> 2), or
 * null when the text is not a JSON number.
 */
export function significantDecimals(text: string): number | null {
  const decimal = readDecimal(text);
  return decimal ? Math.max(0, decimal.scale) : null;
}

/** What `decimalToMinorUnits` makes of a decimal text. */
export type MinorUnitsOf =
  { ok: true; minor: bigint } | { ok: false; reason: 'not_a_number' | 'excess_decimals' | 'too_large' };

/**
 * A decimal text as an exact integer of minor units with `minorUnits` decimals (`'1234.5'`, 2 -> 123450n):
 * refused when it has more significant decimals (`'999.999'`, 2), is not a JSON number, or has more than 30
 * digits of minor units (larger than any bound of the platform; the caller applies its own).
 */
export function decimalToMinorUnits(text: string, minorUnits: number): MinorUnitsOf {
  const decimal = readDecimal(text);
  if (!decimal) return { ok: false, reason: 'not_a_number' };
  if (decimal.scale > minorUnits) return { ok: false, reason: 'excess_decimals' };
  if (decimal.digits === '') return { ok: true, minor: 0n };
  const zeros = minorUnits - decimal.scale;
  if (decimal.digits.length + zeros > MAX_INTEGER_DIGITS) return { ok: false, reason: 'too_large' };
  const minor = BigInt(`${decimal.digits}${'0'.repeat(zeros)}`);
  return { ok: true, minor: decimal.negative ? -minor : minor };
}
