/**
 * Hostile values, grouped by kind. Each kind is a class of input that has broken parsers before; the
 * generator draws one member of a kind with the seeded random source, so every run of one seed sends the
 * same bytes and a failure reproduces.
 */

/**
 * A small seeded generator (mulberry32): the fuzz test needs reproducible draws, not cryptographic ones, and
 * `Math.random` cannot be seeded.
 */
export class SeededRandom {
  private state: number;

  constructor(seed: number) {
    this.state = seed >>> 0;
  }

  next(): number {
    this.state = (this.state + 0x6d2b79f5) >>> 0;
    let t = this.state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  }

  pick<T>(values: readonly T[]): T {
    return values[Math.floor(this.next() * values.length)];
  }

  between(low: number, high: number): number {
    return low + Math.floor(this.next() * (high - low + 1));
  }
}

/** JSON text inserted verbatim where a value goes: numbers JSON.stringify cannot write, or raw bytes. */
export class RawJson {
  constructor(readonly bytes: Buffer) {}
  static text(text: string): RawJson {
    return new RawJson(Buffer.from(text, 'utf8'));
  }
}

/** Serialises a body that may contain RawJson parts (iterative: the bodies may be very deep). */
export function encodeJson(value: unknown): Buffer {
  const parts: Buffer[] = [];
  const write = (v: unknown): void => {
    if (v instanceof RawJson) parts.push(v.bytes);
    else if (Array.isArray(v)) {
      parts.push(Buffer.from('['));
      v.forEach((item, i) => {
        if (i) parts.push(Buffer.from(','));
        write(item);
      });
      parts.push(Buffer.from(']'));
    } else if (v && typeof v === 'object') {
      parts.push(Buffer.from('{'));
      Object.entries(v).forEach(([key, item], i) => {
        parts.push(Buffer.from(`${i ? ',' : ''}${JSON.stringify(key)}:`));
        write(item);
      });
      parts.push(Buffer.from('}'));
    } else parts.push(Buffer.from(JSON.stringify(v) ?? 'null'));
  };
  write(value);
  return Buffer.concat(parts);
}

const range = (from: number, to: number) => Array.from({ length: to - from + 1 }, (_, i) => from + i);
const chars = (codes: number[]) => codes.map((code) => String.fromCharCode(code));

/**
 * Text the API must refuse wherever a human text field takes it (names, emails, free text): each kind has
 * `rejected: true`. The other kinds are legitimate but awkward text (accepted or refused, never a 500).
 */
export const STRING_KINDS: {
  kind: string;
  members: string[];
  rejected: boolean;
  /** The member is the whole value; otherwise it is appended to a valid one. */
  whole?: boolean;
}[] = [
  { kind: 'NUL', members: ['\u0000'], rejected: true },
  { kind: 'C0 control', members: chars([...range(0x01, 0x1f), 0x7f]), rejected: true },
  { kind: 'C1 control', members: chars(range(0x80, 0x9f)), rejected: true },
  { kind: 'lone high surrogate', members: chars(range(0xd800, 0xdbff)), rejected: true },
  { kind: 'lone low surrogate', members: chars(range(0xdc00, 0xdfff)), rejected: true },
  { kind: 'reversed surrogate pair', members: ['\udc00\ud800', '\ude00\ud83d'], rejected: true },
  { kind: 'bidi embedding or override', members: chars(range(0x202a, 0x202e)), rejected: true },
  { kind: 'bidi isolate', members: chars(range(0x2066, 0x2069)), rejected: true },
  { kind: 'bidi mark', members: ['\u200e', '\u200f', '\u061c'], rejected: true },
  { kind: 'zero width or BOM', members: ['\u200b', '\u200d', '\u2060', '\ufeff'], rejected: false },
  { kind: 'line or paragraph separator', members: ['\u2028', '\u2029'], rejected: false },
  { kind: 'noncharacter', members: ['\ufffe', '\uffff', '\ufdd0'], rejected: false },
  { kind: 'astral plane', members: ['𝔘𝔫𝔦', '👩‍👩‍👧‍👦', '🏳️‍🌈'], rejected: false },
  {
    kind: 'combining marks',
    members: ['Z\u0351\u0362\u036b\u0346\u0300\u0301\u0302'.repeat(20)],
    rejected: false,
  },
  { kind: 'right-to-left script', members: ['محمد', 'שלום', 'ܫܠܡܐ'], rejected: false },
  { kind: 'replacement character', members: ['\ufffd'], rejected: false },
  {
    kind: 'markup and injection',
    members: [
      '<script>alert(1)</script>',
      "'; DROP TABLE users;--",
      '{"$gt":""}',
      '../../etc/passwd',
      '${jndi:ldap://x}',
      '__proto__',
    ],
    rejected: false,
  },
  { kind: 'whitespace only', members: [' ', '\u00a0', '\u3000'], rejected: false, whole: true },
  { kind: 'empty', members: [''], rejected: false, whole: true },
  { kind: 'long (10k)', members: ['a'.repeat(10_000)], rejected: false, whole: true },
  { kind: 'huge (200k)', members: ['é'.repeat(200_000)], rejected: false, whole: true },
];

/** Byte sequences that are not UTF-8, for the inside of a JSON string. */
export const INVALID_UTF8: { kind: string; bytes: number[] }[] = [
  { kind: 'lone continuation byte', bytes: [0x80] },
  { kind: 'invalid byte 0xff', bytes: [0xff] },
  { kind: 'truncated sequence', bytes: [0xe2, 0x82] },
  { kind: 'overlong slash', bytes: [0xc0, 0xaf] },
  { kind: 'encoded surrogate', bytes: [0xed, 0xa0, 0x80] },
  { kind: 'latin-1 e-acute', bytes: [0xe9] },
];

/** Numbers as JSON text: beyond doubles, beyond 2^53, more decimals than any currency, negative zero. */
export const NUMBER_TEXTS: { kind: string; members: string[] }[] = [
  { kind: 'overflows a double', members: ['1e309', '-1e309', '1e400'] },
  { kind: 'negative zero', members: ['-0', '-0.0'] },
  { kind: 'underflows to zero', members: ['1e-400', '5e-325'] },
  { kind: 'too many decimals', members: ['1.1234567', '0.0000001', '25.123456789012345'] },
  { kind: 'above 2^53', members: ['9007199254740993', '9007199254740993.5', '18446744073709551616'] },
  { kind: 'huge', members: ['1e300', '123456789012345678901234567890', '1e21'] },
  { kind: 'negative', members: ['-1', '-25.5', '-9007199254740993'] },
  { kind: 'zero', members: ['0', '0.0', '0e0'] },
  { kind: 'float noise', members: ['0.30000000000000004', '5e-324', '1.0'] },
];

/** Query values: absurd, out of range, not numbers at all, or not even well-formed percent-encoding. */
export const QUERY_VALUES: { kind: string; members: string[] }[] = [
  { kind: 'empty', members: [''] },
  { kind: 'negative', members: ['-1', '-0', '-9007199254740993'] },
  {
    kind: 'absurdly large',
    members: ['1e15', '1000000000000000', '9007199254740993', '1e309', '99999999999999999999'],
  },
  { kind: 'not a number', members: ['NaN', 'Infinity', '0x10', '1.5', '1e2', '%201', '%D9%A3'] },
  { kind: 'malformed percent-encoding', members: ['%', '%ZZ', '%E0%A4%A', '%C0%AF', '%ED%A0%80', '%FF'] },
  { kind: 'control or bidi', members: ['%00', '%0D%0A', '%E2%80%AE', '%E2%81%A6', '%C2%85'] },
  { kind: 'huge', members: ['a'.repeat(8_000)] },
  { kind: 'object notation', members: ['%5Bobject%20Object%5D', '%7B%22%24gt%22%3A%22%22%7D', '__proto__'] },
];

/** Path segments where an id goes: not ids, hostile, or not well-formed. */
export const ABSURD_IDS: string[] = [
  'x',
  '0',
  '-1',
  'usr-00000000-0000-0000-0000-000000000000',
  'usr-ZZZZZZZZ-0000-0000-0000-000000000000',
  '%00',
  '%',
  '%ZZ',
  '%ED%A0%80',
  '%FF%FE',
  '%E2%80%AE',
  '..%2F..%2Fetc%2Fpasswd',
  '%2F',
  'a'.repeat(1_000),
  'a'.repeat(20_000),
  '__proto__',
  'constructor',
  '%F0%9F%92%A9',
  'null',
  'undefined',
  '1e309',
];
