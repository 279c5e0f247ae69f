import { iso4217MinorUnits, significantDecimals } from '@cip/shared/contracts';
import { Transform } from 'class-transformer';
import { ValidateBy, type ValidationArguments } from 'class-validator';
import { numberLiteral } from '../pipeline/request-bodies';

/** What the OpenAPI descriptions of amount fields say of their decimals (API-DECISIONS, money). */
export const MONEY_DECIMALS_RULE =
  'Decimals are judged on the number as written in the JSON body, never rounded: trailing zeros do not count ' +
  '(999.990 USD is 999.99), more than the currency has is 400 validation_error naming the field (999.999 USD)';

/** How many decimals an amount field may have: fixed (`USDC`, 6), or those of a currency named by a sibling. */
export type MoneyAmountCurrency =
  { unit: string; decimals: number } | { currencyField: string; defaultCurrency: string };

/** An amount whose literal had more decimals than its currency: what the validator below refuses. */
class ExcessDecimals {
  constructor(
    readonly literal: string,
    readonly decimals: number,
    readonly unit: string,
  ) {}
}

function allowedDecimals(source: Record<string, unknown>, currency: MoneyAmountCurrency) {
  if ('unit' in currency) return { unit: currency.unit, decimals: currency.decimals };
  const named = source[currency.currencyField] ?? currency.defaultCurrency;
  const decimals = typeof named === 'string' ? iso4217MinorUnits(named) : null;
  // An unknown currency is its own field's error; the amount is not judged against a guess.
  return decimals === null ? null : { unit: named as string, decimals };
}

/**
 * An amount of money in a JSON body (API-DECISIONS, money): a finite JSON number with at most the decimals of
 * its currency, judged on the number's text as the body carried it (`numberLiteral`), never on a float
 * product: `999.999` USD is refused (400 naming the field), `999.990` is 999.99. Trailing zeros are not
 * decimals. Replaces `@IsNumber` on the field; the field's other rules (positive, bounds) stay the service's.
 */
export function MoneyAmount(currency: MoneyAmountCurrency): PropertyDecorator {
  const judge = Transform(({ value, key, obj }) => {
    if (typeof value !== 'number' || !Number.isFinite(value)) return value;
    const allowed = allowedDecimals(obj as Record<string, unknown>, currency);
    if (!allowed) return value;
    const literal = numberLiteral(obj, key) ?? String(value);
    const decimals = significantDecimals(literal);
    return decimals !== null && decimals > allowed.decimals
      ? new ExcessDecimals(literal, allowed.decimals, allowed.unit)
      : value;
  });
  const validate = ValidateBy({
    name: 'moneyAmount',
    validator: {
      validate: (value: unknown) => typeof value === 'number' && Number.isFinite(value),
      defaultMessage: ({ property, value }: ValidationArguments) =>
        value instanceof ExcessDecimals
          ? `${property} has more decimals than ${value.unit} has (at most ${value.decimals}): ${value.literal.slice(0, 40)}`
          : `${property} must be a number`,
    },
  });
  return (target, property) => {
    judge(target, property);
    validate(target, property);
  };
}
