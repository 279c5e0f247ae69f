import { inspect } from 'node:util';
import { IsoCodec } from './codec';
import { IsoFormatError } from './errors';
import { F } from './field-spec';
import { IsoMessage } from './iso-message';

const codec = new IsoCodec();
const hexCodec = new IsoCodec({ bitmap: 'hex' });
const ascii = (text: string) => Buffer.from(text, 'latin1');

const PAN = '4111111111111111';
const CVV2 = '123';
const PIN_BLOCK = Buffer.from('041234FEDCBA9876', 'hex');

function authorizationRequest(): IsoMessage {
  return new IsoMessage('0100', {
    [F.PAN]: PAN,
    [F.PROCESSING_CODE]: '000000',
    [F.AMOUNT_TRANSACTION]: '000000012345',
    [F.AMOUNT_CARDHOLDER_BILLING]: '000000012345',
    [F.TRANSMISSION_DATE_TIME]: '1123131415',
    [F.STAN]: '000042',
    [F.LOCAL_TIME]: '141415',
    [F.LOCAL_DATE]: '1123',
    [F.EXPIRY]: '2911',
    [F.MCC]: '5999',
    [F.POS_ENTRY_MODE]: '012',
    [F.ACQUIRING_INSTITUTION_ID]: '400001',
    [F.TRACK_2]: `${PAN}=29111010000012300000`,
    [F.RRN]: '332713000042',
    [F.TERMINAL_ID]: 'TERM0001',
    [F.MERCHANT_ID]: 'MERCHANT0000001',
    [F.CARD_ACCEPTOR_NAME_LOCATION]: 'COFFEE SHOP'.padEnd(25) + 'PARIS'.padEnd(13) + 'FR',
    [F.CURRENCY_TRANSACTION]: '978',
    [F.CURRENCY_CARDHOLDER_BILLING]: '978',
    [F.PIN_DATA]: PIN_BLOCK,
    [F.ADDITIONAL_AMOUNTS]: '0002978C000000001000',
    [F.CVV2]: CVV2,
  });
}

function formatError(run: () => unknown): IsoFormatError {
  try {
    run();
  } catch (error) {
    if (error instanceof IsoFormatError) return error;
    throw new Error(`expected an IsoFormatError, got ${String(error)}`);
  }
  throw new Error('expected an IsoFormatError, nothing was thrown');
}

describe('published example messages', () => {
  // Source: github.com/patrickaburu1/ISO8583-PACK-UNPACK, README "Sample": a 1987 0200 with an ASCII-hex
  // primary bitmap 3220000000808000 and its field-by-field breakdown.
  const sample = '02003220000000808000000010000000001500120604120000000112340001840';

  it('decodes the 0200 sample into the published fields and re-encodes it byte for byte', () => {
    const message = hexCodec.decode(ascii(sample));
    expect(message.mti).toBe('0200');
    expect(message.toJSON().fields).toEqual({
      '3': '000010',
      '4': '000000001500',
      '7': '1206041200',
      '11': '000001',
      '41': '12340001',
      '49': '840',
    });
    expect(hexCodec.encode(message).toString('latin1')).toBe(sample);
  });

  // Source: pyiso8583 README (knovichikhin/pyiso8583, "Encoding & Decoding"): b'02004000000000000000101234567890'
  // decodes to {'t': '0200', 'p': '4000000000000000', '2': '1234567890'}.
  it('decodes the pyiso8583 README message: an LLVAR PAN behind a hex bitmap', () => {
    const raw = ascii('02004000000000000000101234567890');
    const message = hexCodec.decode(raw);
    expect(message.get(F.PAN)).toBe('1234567890');
    expect(hexCodec.encode(message)).toEqual(raw);
  });

  // The echo test of ISO 8583:1987 with binary bitmaps, laid out by hand from the standard's bit numbering:
  // bit 1 (secondary bitmap), 7 and 11 in the primary; bit 70 is the 6th bit of the secondary.
  it('lays out binary primary and secondary bitmaps as the standard numbers bits', () => {
    const echo = new IsoMessage('0800', {
      [F.TRANSMISSION_DATE_TIME]: '1123131415',
      [F.STAN]: '000001',
      [F.NETWORK_MANAGEMENT_CODE]: '301',
    });
    const expected = Buffer.concat([
      ascii('0800'),
      Buffer.from('8220000000000000', 'hex'),
      Buffer.from('0400000000000000', 'hex'),
      ascii('1123131415000001301'),
    ]);
    expect(codec.encode(echo)).toEqual(expected);
    expect(codec.decode(expected).toJSON()).toEqual(echo.toJSON());
  });
});

describe('encoding and decoding the authorization flow', () => {
  it('round-trips an 0100 with every field the flow uses, the PIN block as bytes', () => {
    const request = authorizationRequest();
    const decoded = codec.decode(codec.encode(request));
    expect(decoded.mti).toBe('0100');
    expect(decoded.fieldNumbers()).toEqual(request.fieldNumbers());
    for (const field of request.fieldNumbers())
      expect(decoded.valueAt(field)).toEqual(request.valueAt(field));
    expect(decoded.getBinary(F.PIN_DATA)).toEqual(PIN_BLOCK);
  });

  it('sends no secondary bitmap when no field above 64 is present', () => {
    const response = new IsoMessage('0110', {
      [F.STAN]: '000042',
      [F.RRN]: '332713000042',
      [F.APPROVAL_CODE]: 'A1B2C3',
      [F.RESPONSE_CODE]: '00',
    });
    const bytes = codec.encode(response);
    expect(bytes.length).toBe(4 + 8 + 6 + 12 + 6 + 2);
    expect(bytes[4] & 0x80).toBe(0);
  });

  it('carries a reversal with its original data elements and replacement amounts', () => {
    const reversal = new IsoMessage('0420', {
      [F.STAN]: '000043',
      [F.RRN]: '332713000042',
      [F.ORIGINAL_DATA_ELEMENTS]: '0100' + '000042' + '1123131415' + '00000400001' + '00000000000',
      [F.REPLACEMENT_AMOUNTS]: '000000002000' + '000000002000' + 'C00000000' + 'C00000000',
    });
    expect(codec.decode(codec.encode(reversal)).get(F.ORIGINAL_DATA_ELEMENTS)).toBe(
      reversal.get(F.ORIGINAL_DATA_ELEMENTS),
    );
  });

  it('pads short fixed fields: numbers with leading zeros, text with trailing spaces', () => {
    const decoded = codec.decode(
      codec.encode(
        new IsoMessage('0100', { [F.AMOUNT_TRANSACTION]: '12345', [F.TERMINAL_ID]: 'T1', [F.STAN]: '7' }),
      ),
    );
    expect(decoded.get(F.AMOUNT_TRANSACTION)).toBe('000000012345');
    expect(decoded.get(F.TERMINAL_ID)).toBe('T1      ');
    expect(decoded.get(F.STAN)).toBe('000007');
  });

  it('writes LLVAR and LLLVAR length prefixes as ASCII digits', () => {
    const bytes = codec.encode(new IsoMessage('0100', { [F.PAN]: PAN, [F.ADDITIONAL_DATA_PRIVATE]: 'X' }));
    const text = bytes.toString('latin1', 12);
    expect(text).toBe(`16${PAN}001X`);
  });
});

describe('typed validation errors, never a crash', () => {
  it.each([
    [
      'a letter in a numeric field',
      new IsoMessage('0100', { [F.AMOUNT_TRANSACTION]: '12A' }),
      4,
      'bad_character',
    ],
    ['a value longer than the field', new IsoMessage('0100', { [F.PAN]: '4'.repeat(20) }), 2, 'too_long'],
    [
      'a string where bytes are expected',
      new IsoMessage('0100', { [F.PIN_DATA]: '1234' }),
      52,
      'wrong_value_type',
    ],
    [
      'a PIN block of the wrong size',
      new IsoMessage('0100', { [F.PIN_DATA]: Buffer.alloc(4) }),
      52,
      'wrong_length',
    ],
    ['a field the dialect does not carry', new IsoMessage('0100', { 5: '000000000001' }), 5, 'not_in_spec'],
    ['a malformed MTI', new IsoMessage('01X0', {}), 0, 'bad_mti'],
  ])('refuses to encode %s', (_case, message, field, reason) => {
    const error = formatError(() => codec.encode(message));
    expect({ field: error.field, reason: error.reason }).toEqual({ field, reason });
  });

  it('names the field but never quotes its value', () => {
    const error = formatError(() => codec.encode(new IsoMessage('0100', { [F.PAN]: '411111111111111X' })));
    expect(error.message).not.toContain('411111');
  });

  const valid = codec.encode(authorizationRequest());

  it.each([
    ['an empty buffer', Buffer.alloc(0), 0, 'truncated'],
    ['a cut bitmap', valid.subarray(0, 9), 1, 'truncated'],
    ['a cut last field', valid.subarray(0, valid.length - 1), 126, 'truncated'],
    ['bytes after the last field', Buffer.concat([valid, ascii('9')]), 0, 'trailing_bytes'],
    ['a bad hex bitmap', ascii('0200ZZ00000000000000'), 1, 'bad_bitmap'],
  ])('refuses to decode %s', (_case, buffer, field, reason) => {
    const decoder = reason === 'bad_bitmap' ? hexCodec : codec;
    const error = formatError(() => decoder.decode(buffer));
    expect({ field: error.field, reason: error.reason }).toEqual({ field, reason });
  });

  it('refuses a length prefix that is not digits or exceeds the maximum', () => {
    const bitmap = Buffer.from('4000000000000000', 'hex');
    expect(
      formatError(() => codec.decode(Buffer.concat([ascii('0100'), bitmap, ascii('1X4111')]))).reason,
    ).toBe('bad_length_prefix');
    expect(
      formatError(() => codec.decode(Buffer.concat([ascii('0100'), bitmap, ascii('20' + '4'.repeat(20))])))
        .reason,
    ).toBe('too_long');
  });

  // A deterministic PRNG (mulberry32) so a failing case can be replayed.
  function prng(seed: number): () => number {
    let a = seed;
    return () => {
      a = (a + 0x6d2b79f5) | 0;
      let t = Math.imul(a ^ (a >>> 15), 1 | a);
      t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
      return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
    };
  }

  it('throws only IsoFormatError on 20,000 random, truncated and bit-flipped buffers', () => {
    const random = prng(8583);
    const failures: string[] = [];
    const attempt = (buffer: Buffer) => {
      try {
        codec.decode(buffer);
      } catch (error) {
        if (!(error instanceof IsoFormatError)) failures.push(`${buffer.toString('hex')}: ${String(error)}`);
      }
    };
    for (let i = 0; i < 5_000; i++) {
      const noise = Buffer.alloc(Math.floor(random() * 200));
      for (let j = 0; j < noise.length; j++) noise[j] = Math.floor(random() * 256);
      if (noise.length >= 4 && random() < 0.5) noise.write('0100', 0, 'latin1');
      attempt(noise);
      attempt(valid.subarray(0, Math.floor(random() * valid.length)));
      const flipped = Buffer.from(valid);
      flipped[Math.floor(random() * flipped.length)] ^= 1 << Math.floor(random() * 8);
      attempt(flipped);
      const cut = Math.floor(random() * valid.length);
      attempt(Buffer.concat([valid.subarray(0, cut), valid.subarray(cut + 1)]));
    }
    expect(failures).toEqual([]);
  });
});

describe('card secrets never leave a message in clear', () => {
  const request = authorizationRequest();
  const renderings = {
    'JSON.stringify': JSON.stringify(request),
    'util.inspect': inspect(request),
    'String()': String(request),
    'a template literal': `${request}`,
    'inspect of an object holding it': inspect({ request }, { depth: 5 }),
  };

  it.each(Object.entries(renderings))('%s masks PAN, expiry, track 2, PIN block and CVV2', (_how, text) => {
    expect(text).not.toContain(PAN);
    expect(text).not.toContain('411111');
    expect(text).not.toContain('2911');
    expect(text).not.toContain(PIN_BLOCK.toString('hex'));
    expect(text).not.toContain(`"${CVV2}"`);
    expect(text).toContain('1111');
    expect(text).toContain('0100');
  });

  it('keeps non-sensitive fields readable for operators', () => {
    expect(request.toJSON().fields[F.RRN]).toBe('332713000042');
    expect(request.toJSON().fields[F.PAN]).toBe('************1111');
    expect(request.toJSON().fields[F.CVV2]).toBe('[redacted]');
  });
});
