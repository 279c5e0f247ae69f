import 'reflect-metadata';
import { plainToInstance, Type } from 'class-transformer';
import { IsOptional, IsString, validate, ValidateNested } from 'class-validator';
import Fastify from 'fastify';
import { installRequestBodies, numberLiteral } from '../pipeline/request-bodies';
import { MoneyAmount } from './money-amount.decorator';

class PaymentDto {
  @MoneyAmount({ currencyField: 'currency', defaultCurrency: 'USD' })
  amount: number;

  @IsOptional()
  @IsString()
  currency?: string;
}

class LimitDto {
  @MoneyAmount({ unit: 'USD', decimals: 2 })
  amount: number;
}

class LimitsDto {
  @ValidateNested({ each: true })
  @Type(() => LimitDto)
  limits: LimitDto[];
}

/** The body as the gateway parses it (its content-type parser), then validated as the pipe does. */
async function judged<T extends object>(dto: new () => T, text: string) {
  const fastify = Fastify();
  installRequestBodies(fastify, '/hosted');
  let body: unknown;
  fastify.post('/', async (request) => {
    body = request.body;
    return {};
  });
  const response = await fastify.inject({
    method: 'POST',
    url: '/',
    headers: { 'content-type': 'application/json' },
    payload: text,
  });
  await fastify.close();
  expect(response.statusCode).toBe(200);
  const errors = await validate(plainToInstance(dto, body) as object, { stopAtFirstError: true });
  const messages = (list: typeof errors, parent = ''): string[] =>
    list.flatMap((error) => {
      const field = parent ? `${parent}.${error.property}` : error.property;
      return [
        ...Object.values(error.constraints ?? {}).map((message) => `${field}: ${message}`),
        ...messages(error.children ?? [], field),
      ];
    });
  return { body, messages: messages(errors) };
}

describe('amounts judged on the literal the JSON body carried', () => {
  it('refuses 999.999 USD (which a float product would confirm at 1000.00), naming the field', async () => {
    expect((await judged(PaymentDto, '{"amount":999.999}')).messages).toEqual([
      'amount: amount has more decimals than USD has (at most 2): 999.999',
    ]);
    expect((await judged(PaymentDto, '{"amount":100.001,"currency":"USD"}')).messages).toHaveLength(1);
  });

  it('counts significant decimals: trailing zeros and exponents are judged by value', async () => {
    for (const text of ['999.990', '999.99', '100.10', '100.100', '1e2', '1.5E1', '100'])
      expect((await judged(PaymentDto, `{"amount":${text}}`)).messages).toEqual([]);
    expect((await judged(PaymentDto, '{"amount":1.5e-1}')).messages).toEqual([]); // 0.15
    expect((await judged(PaymentDto, '{"amount":1.5e-2}')).messages).toHaveLength(1); // 0.015
  });

  it("takes the decimals of the currency the body names (JPY 0, KWD 3), whatever the field's order", async () => {
    expect((await judged(PaymentDto, '{"amount":1500.5,"currency":"JPY"}')).messages).toHaveLength(1);
    expect((await judged(PaymentDto, '{"currency":"JPY","amount":1500.0}')).messages).toEqual([]);
    expect((await judged(PaymentDto, '{"amount":1.234,"currency":"KWD"}')).messages).toEqual([]);
    expect((await judged(PaymentDto, '{"amount":1.2345,"currency":"KWD"}')).messages).toEqual([
      'amount: amount has more decimals than KWD has (at most 3): 1.2345',
    ]);
  });

  it('judges the text, not the double: a literal beyond what a double keeps is not read as its rounding', async () => {
    // Above 10^9 the gateway lets long literals through to their field; the double is exactly 1000000000.
    const { body, messages } = await judged(PaymentDto, '{"amount":1000000000.0000000001,"currency":"JPY"}');
    expect((body as { amount: number }).amount).toBe(1_000_000_000);
    expect(numberLiteral(body, 'amount')).toBe('1000000000.0000000001');
    expect(messages).toEqual([
      'amount: amount has more decimals than JPY has (at most 0): 1000000000.0000000001',
    ]);
  });

  it('names the element of an array, and leaves non-numbers to "must be a number"', async () => {
    expect((await judged(LimitsDto, '{"limits":[{"amount":10.5},{"amount":20.125}]}')).messages).toEqual([
      'limits.1.amount: amount has more decimals than USD has (at most 2): 20.125',
    ]);
    expect((await judged(PaymentDto, '{"amount":"10.5"}')).messages).toEqual([
      'amount: amount must be a number',
    ]);
  });

  it('keeps the body plain JSON: numbers stay numbers, the last of duplicate keys wins as with JSON.parse', async () => {
    const { body } = await judged(PaymentDto, '{"amount":1.5,"amount":2.50,"currency":"EUR"}');
    expect(body).toEqual({ amount: 2.5, currency: 'EUR' });
    expect(numberLiteral(body, 'amount')).toBe('2.50');
  });
});
