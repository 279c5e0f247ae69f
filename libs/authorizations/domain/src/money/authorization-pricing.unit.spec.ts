import { MAX_MINOR_UNITS, toMinorUnits } from '@cip/wallets/contract';
import { seededRandom } from '../testing/seeded-random';
import {
  convertToWalletMinor,
  feeToWalletMinor,
  fxFee,
  merchantAmountText,
  MINOR_PER_CENT,
  parseMerchantAmount,
  priceAuthorization,
  usdUnits,
  type ProgramPricing,
} from './authorization-pricing';
import { currencyExponent } from './currencies';

const MERCHANT = { name: 'Cafe Lumen', city: 'Paris', country: 'FR', mcc: '5812' };
const PRICING: ProgramPricing = {
  fxRates: { EUR: '1.0856', JPY: '0.006712', KWD: '3.2571' },
  fees: { fxRate: 20_000, auth: 100_000, atm: 2_500_000 },
};
const payment = { authFee: true };
const charge = (merchantAmount: number, merchantCurrency: string, mcc = '5812') => ({
  merchant: { ...MERCHANT, mcc },
  merchantAmount,
  merchantCurrency,
});

describe('currency exponents (ISO 4217)', () => {
  it('knows the currencies without minor units and with three decimals, and 2 for the rest', () => {
    expect(currencyExponent('JPY')).toBe(0);
    expect(currencyExponent('KRW')).toBe(0);
    expect(currencyExponent('KWD')).toBe(3);
    expect(currencyExponent('EUR')).toBe(2);
    // Where ICU's display digits differ from ISO 4217.
    expect(currencyExponent('HUF')).toBe(2);
    expect(currencyExponent('IDR')).toBe(2);
  });
});

describe('merchantAmount as the spec string', () => {
  it('writes the minor units with the currency exponent', () => {
    expect(merchantAmountText(123450, 'EUR')).toBe('1234.50');
    expect(merchantAmountText(5, 'USD')).toBe('0.05');
    expect(merchantAmountText(0, 'USD')).toBe('0.00');
    expect(merchantAmountText(1500, 'JPY')).toBe('1500');
    expect(merchantAmountText(12345, 'KWD')).toBe('12.345');
  });
});

describe('converting a merchant amount', () => {
  it('takes USD exactly, cents to minor units', () => {
    expect(convertToWalletMinor(1999, 'USD', null)).toBe(19_990_000);
  });

  it('converts at the program rate and rounds half up to the cent', () => {
    // 100.00 EUR * 1.0856 = 108.56 USD exactly.
    expect(convertToWalletMinor(10_000, 'EUR', '1.0856')).toBe(108_560_000);
    // 0.05 EUR * 1.1 = 0.055 USD: half a cent rounds up to 0.06.
    expect(convertToWalletMinor(5, 'EUR', '1.1')).toBe(60_000);
    // 0.05 EUR * 1.09 = 0.0545 USD: below half a cent rounds down to 0.05.
    expect(convertToWalletMinor(5, 'EUR', '1.09')).toBe(50_000);
    // 1500 JPY * 0.006712 = 10.068 USD -> 10.07.
    expect(convertToWalletMinor(1500, 'JPY', '0.006712')).toBe(10_070_000);
    // 12.345 KWD * 3.2571 = 40.2089... USD -> 40.21.
    expect(convertToWalletMinor(12_345, 'KWD', '3.2571')).toBe(40_210_000);
  });

  it('answers null beyond the platform bound', () => {
    expect(convertToWalletMinor(MAX_MINOR_UNITS, 'USD', null)).toBeNull();
    expect(convertToWalletMinor(10 ** 15, 'JPY', '1')).toBeNull();
  });
});

describe('pricing an authorization', () => {
  it('charges the fx and auth fees on a foreign payment, in 6 implied decimals, and adds them exactly', () => {
    const priced = priceAuthorization(charge(10_000, 'EUR'), PRICING, payment);
    expect(priced).toEqual({
      ok: true,
      amount: 108_560_000,
      merchantAmount: '100.00',
      merchantCurrency: 'EUR',
      // 2% of 108.56 USD = 2.1712 USD -> 2.17 USD.
      fee: { fx: 2_170_000, auth: 100_000 },
      feeTotal: 2_270_000,
      fxRate: '1.0856',
    });
  });

  it('charges no fx fee on USD, the atm fee on cash (MCC 6011), no auth fee when not asked', () => {
    expect(priceAuthorization(charge(2000, 'USD', '6011'), PRICING, { authFee: false })).toMatchObject({
      amount: 20_000_000,
      fee: { atm: 2_500_000 },
      feeTotal: 2_500_000,
      fxRate: null,
    });
  });

  it('charges nothing when asked for no fees (refunds)', () => {
    expect(priceAuthorization(charge(2000, 'EUR'), PRICING, { authFee: true, noFees: true })).toMatchObject({
      fee: {},
      feeTotal: 0,
    });
  });

  it('cannot price a currency the program has no rate for, a bad code or a fractional amount', () => {
    expect(priceAuthorization(charge(100, 'GBP'), PRICING, payment)).toEqual({
      ok: false,
      detail: 'the program has no fx rate for GBP',
      declineDetail: 'currency_not_supported',
    });
    expect(priceAuthorization(charge(100, 'eur'), PRICING, payment)).toMatchObject({
      ok: false,
      declineDetail: 'currency_not_supported',
    });
    // Three letters are not enough: a code ISO 4217 list one does not have is no currency.
    expect(priceAuthorization(charge(100, 'XYZ'), PRICING, payment)).toMatchObject({
      ok: false,
      detail: 'XYZ is not an ISO 4217 currency code',
      declineDetail: 'currency_not_supported',
    });
    expect(priceAuthorization(charge(1.5, 'USD'), PRICING, payment)).toMatchObject({ ok: false });
    expect(priceAuthorization(charge(-1, 'USD'), PRICING, payment)).toMatchObject({ ok: false });
    expect(
      priceAuthorization(charge(100, 'EUR'), { ...PRICING, fxRates: { EUR: '0.000' } }, payment),
    ).toMatchObject({ ok: false });
  });

  it('fails loudly on a misconfigured program fee rather than charging it', () => {
    for (const fees of [{ auth: 0.5 }, { atm: -1 }, { fxRate: Number.NaN }]) {
      expect(() => priceAuthorization(charge(100, 'USD'), { fxRates: {}, fees }, payment)).toThrow(
        /whole number in 6 implied decimals/,
      );
    }
  });

  it('refuses a total beyond the platform bound, fees included', () => {
    const justBelow = (MAX_MINOR_UNITS - 100_000) / MINOR_PER_CENT;
    expect(priceAuthorization(charge(justBelow, 'USD'), PRICING, { authFee: false })).toMatchObject({
      ok: true,
    });
    expect(priceAuthorization(charge(justBelow + 1, 'USD'), PRICING, payment)).toMatchObject({ ok: false });
  });
});

describe('money math on many random cases (seeded)', () => {
  const random = seededRandom(20261123);
  const CURRENCIES = ['EUR', 'JPY', 'KWD', 'GBP', 'CLF', 'CHF'];
  const randomRate = () => {
    const integer = random.int(0, 999);
    const fraction = String(random.int(0, 10 ** random.int(1, 9) - 1));
    const rate = `${integer}.${fraction}`;
    return /^[0.]+$/.test(rate) ? '1.5' : rate;
  };

  it('rounds every conversion half up to the cent, exactly (checked on bigints, and close to floats)', () => {
    for (let i = 0; i < 5000; i++) {
      const currency = random.pick(CURRENCIES);
      const minor = random.int(0, 10 ** random.int(0, 9));
      const rate = randomRate();
      const converted = convertToWalletMinor(minor, currency, rate);
      if (converted === null) continue;
      expect(Number.isSafeInteger(converted)).toBe(true);
      expect(converted % MINOR_PER_CENT).toBe(0);
      // exact USD = minor * rate / 10^exponent; half up gives c cents with 2 * (c - exact cents) in (-1, 1].
      const [integer, fraction = ''] = rate.split('.');
      const numerator = BigInt(minor) * BigInt(integer + fraction) * 100n;
      const denominator = 10n ** BigInt(fraction.length + currencyExponent(currency));
      const twiceError = 2n * (BigInt(converted / MINOR_PER_CENT) * denominator - numerator);
      expect(twiceError > -denominator && twiceError <= denominator).toBe(true);
      // A float computation drifts; ours stays within a cent of it however large the amount.
      const float = (minor / 10 ** currencyExponent(currency)) * Number(rate);
      expect(Math.abs(converted / 10 ** 6 - float)).toBeLessThanOrEqual(0.005 + float * 1e-12);
    }
  });

  it('writes and reads back every merchant amount exactly', () => {
    for (let i = 0; i < 5000; i++) {
      const currency = random.pick([...CURRENCIES, 'USD', 'BHD']);
      const minor = random.int(0, Number.MAX_SAFE_INTEGER);
      const text = merchantAmountText(minor, currency);
      const exponent = currencyExponent(currency);
      expect(text).toMatch(exponent === 0 ? /^\d+$/ : new RegExp(`^\\d+\\.\\d{${exponent}}$`));
      expect(parseMerchantAmount(text, currency)).toBe(minor);
    }
  });

  it('adds the fees to the amount exactly, each within half a cent of its rate, shown as exact USD numbers', () => {
    for (let i = 0; i < 5000; i++) {
      const currency = random.pick([...CURRENCIES, 'USD']);
      const pricing: ProgramPricing = {
        fxRates: { [currency]: randomRate() },
        fees: {
          fxRate: random.int(0, 100_000),
          auth: random.int(0, 1_000_000),
          atm: random.int(0, 5_000_000),
        },
      };
      const priced = priceAuthorization(
        charge(random.int(1, 10 ** random.int(1, 10)), currency, random.pick(['5812', '6011'])),
        pricing,
        { authFee: random.next() < 0.5 },
      );
      if (!priced.ok) continue;
      const { fx = 0, atm = 0, auth = 0 } = priced.fee;
      expect(priced.feeTotal).toBe(feeToWalletMinor(fx + atm + auth));
      if (currency !== 'USD' && pricing.fees.fxRate) {
        expect(fx).toBe(fxFee(priced.amount, pricing.fees.fxRate));
        const twiceError =
          2n * (BigInt(fx) * 10n ** 6n - BigInt(priced.amount) * BigInt(pricing.fees.fxRate));
        expect(twiceError > -(10n ** 10n) && twiceError <= 10n ** 10n).toBe(true);
      }
      const total = priced.amount + priced.feeTotal;
      expect(total).toBeLessThanOrEqual(MAX_MINOR_UNITS);
      // The API's USD number reads back as the same minor units.
      if (priced.amount > 0) expect(toMinorUnits(usdUnits(priced.amount))).toBe(priced.amount);
      if (total > 0) expect(toMinorUnits(usdUnits(total))).toBe(total);
    }
  });
});
