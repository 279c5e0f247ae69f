/**
 * The one declarative field table of the platform's ISO 8583 dialect: ISO 8583:1987 numbering and formats,
 * with jPOS-CMF conventions where 1987 leaves a choice open (see docs/iso8583.md for every field and why).
 * The codec knows nothing about individual fields: it walks this table.
 */

/** ISO 8583 data types: n digits, an letters/digits/space, ans printable ASCII, z track-2 characters, b binary. */
export type FieldType = 'n' | 'an' | 'ans' | 'z' | 'b';

/** fixed: exactly `maxLength`; LLVAR/LLLVAR: a 2/3-digit ASCII length prefix, then up to `maxLength`. */
export type FieldLength = 'fixed' | 'LLVAR' | 'LLLVAR';

/**
 * How a field shows in `toJSON`/inspect: `pan` keeps the last four digits, `secret` shows nothing of the value.
 * PAN, expiry, track 2, PIN block and CVV2 are never rendered in clear.
 */
export type FieldSensitivity = 'pan' | 'secret';

export interface FieldSpec {
  readonly field: number;
  readonly name: string;
  readonly type: FieldType;
  readonly length: FieldLength;
  /** Characters for text types, bytes for `b`. */
  readonly maxLength: number;
  readonly sensitive?: FieldSensitivity;
}

/** Indexed by field number (1..128); a hole is a field this dialect does not carry. */
export type FieldSpecTable = ReadonlyArray<FieldSpec | undefined>;

/** Builds the indexed table from a list; refuses duplicates and numbers outside 2..128 at start-up. */
export function fieldSpecTable(fields: readonly FieldSpec[]): FieldSpecTable {
  const table: (FieldSpec | undefined)[] = new Array(129).fill(undefined);
  for (const spec of fields) {
    if (!Number.isInteger(spec.field) || spec.field < 2 || spec.field > 128 || spec.field === 65) {
      throw new Error(`field ${spec.field}: not a data field (1 and 65 are bitmaps)`);
    }
    if (table[spec.field]) throw new Error(`field ${spec.field}: declared twice`);
    const prefixMax = spec.length === 'LLVAR' ? 99 : spec.length === 'LLLVAR' ? 999 : Infinity;
    if (spec.maxLength < 1 || spec.maxLength > prefixMax) {
      throw new Error(`field ${spec.field}: max length ${spec.maxLength} does not fit ${spec.length}`);
    }
    table[spec.field] = Object.freeze({ ...spec });
  }
  return Object.freeze(table);
}

/** Field numbers the authorization flow reads and writes (see docs/iso8583.md). */
export const F = {
  PAN: 2,
  PROCESSING_CODE: 3,
  AMOUNT_TRANSACTION: 4,
  AMOUNT_CARDHOLDER_BILLING: 6,
  TRANSMISSION_DATE_TIME: 7,
  CONVERSION_RATE_CARDHOLDER_BILLING: 10,
  STAN: 11,
  LOCAL_TIME: 12,
  LOCAL_DATE: 13,
  EXPIRY: 14,
  SETTLEMENT_DATE: 15,
  MCC: 18,
  ACQUIRER_COUNTRY: 19,
  POS_ENTRY_MODE: 22,
  POS_CONDITION_CODE: 25,
  ACQUIRING_INSTITUTION_ID: 32,
  FORWARDING_INSTITUTION_ID: 33,
  TRACK_2: 35,
  RRN: 37,
  APPROVAL_CODE: 38,
  RESPONSE_CODE: 39,
  TERMINAL_ID: 41,
  MERCHANT_ID: 42,
  CARD_ACCEPTOR_NAME_LOCATION: 43,
  ADDITIONAL_RESPONSE_DATA: 44,
  ADDITIONAL_DATA_PRIVATE: 48,
  CURRENCY_TRANSACTION: 49,
  CURRENCY_CARDHOLDER_BILLING: 51,
  PIN_DATA: 52,
  ADDITIONAL_AMOUNTS: 54,
  ADVICE_REASON: 60,
  NETWORK_MANAGEMENT_CODE: 70,
  ORIGINAL_DATA_ELEMENTS: 90,
  REPLACEMENT_AMOUNTS: 95,
  CVV2: 126,
} as const;

/**
 * The platform's dialect. Lengths and types are ISO 8583:1987's; names follow jPOS-CMF. Where jPOS-CMF
 * renumbers a 1987 field (CMF DE-049.2 "card verification data" sits where 1987 has the currency code), the
 * CMF element moves to a private-use field: CVV2 travels in DE-126 (where Visa's BASE I carries it, 126.10).
 */
export const CIP_FIELD_SPEC: FieldSpecTable = fieldSpecTable([
  { field: 2, name: 'Primary account number', type: 'n', length: 'LLVAR', maxLength: 19, sensitive: 'pan' },
  { field: 3, name: 'Processing code', type: 'n', length: 'fixed', maxLength: 6 },
  { field: 4, name: 'Amount, transaction', type: 'n', length: 'fixed', maxLength: 12 },
  { field: 6, name: 'Amount, cardholder billing', type: 'n', length: 'fixed', maxLength: 12 },
  {
    field: 7,
    name: 'Transmission date and time (MMDDhhmmss, UTC)',
    type: 'n',
    length: 'fixed',
    maxLength: 10,
  },
  { field: 10, name: 'Conversion rate, cardholder billing', type: 'n', length: 'fixed', maxLength: 8 },
  { field: 11, name: 'System trace audit number', type: 'n', length: 'fixed', maxLength: 6 },
  { field: 12, name: 'Time, local transaction (hhmmss)', type: 'n', length: 'fixed', maxLength: 6 },
  { field: 13, name: 'Date, local transaction (MMDD)', type: 'n', length: 'fixed', maxLength: 4 },
  {
    field: 14,
    name: 'Date, expiration (YYMM)',
    type: 'n',
    length: 'fixed',
    maxLength: 4,
    sensitive: 'secret',
  },
  { field: 15, name: 'Date, settlement (MMDD)', type: 'n', length: 'fixed', maxLength: 4 },
  { field: 18, name: 'Merchant category code', type: 'n', length: 'fixed', maxLength: 4 },
  { field: 19, name: 'Country code, acquiring institution', type: 'n', length: 'fixed', maxLength: 3 },
  { field: 22, name: 'Point of service entry mode', type: 'n', length: 'fixed', maxLength: 3 },
  { field: 25, name: 'Point of service condition code', type: 'n', length: 'fixed', maxLength: 2 },
  { field: 32, name: 'Acquiring institution identification code', type: 'n', length: 'LLVAR', maxLength: 11 },
  {
    field: 33,
    name: 'Forwarding institution identification code',
    type: 'n',
    length: 'LLVAR',
    maxLength: 11,
  },
  { field: 35, name: 'Track 2 data', type: 'z', length: 'LLVAR', maxLength: 37, sensitive: 'secret' },
  { field: 37, name: 'Retrieval reference number', type: 'an', length: 'fixed', maxLength: 12 },
  { field: 38, name: 'Approval code', type: 'an', length: 'fixed', maxLength: 6 },
  { field: 39, name: 'Response code', type: 'an', length: 'fixed', maxLength: 2 },
  { field: 41, name: 'Card acceptor terminal identification', type: 'ans', length: 'fixed', maxLength: 8 },
  { field: 42, name: 'Card acceptor identification code', type: 'ans', length: 'fixed', maxLength: 15 },
  { field: 43, name: 'Card acceptor name/location', type: 'ans', length: 'fixed', maxLength: 40 },
  { field: 44, name: 'Additional response data', type: 'ans', length: 'LLVAR', maxLength: 25 },
  { field: 48, name: 'Additional data, private', type: 'ans', length: 'LLLVAR', maxLength: 999 },
  {
    field: 49,
    name: 'Currency code, transaction (ISO 4217 numeric)',
    type: 'n',
    length: 'fixed',
    maxLength: 3,
  },
  { field: 51, name: 'Currency code, cardholder billing', type: 'n', length: 'fixed', maxLength: 3 },
  {
    field: 52,
    name: 'PIN data (ISO 9564 PIN block)',
    type: 'b',
    length: 'fixed',
    maxLength: 8,
    sensitive: 'secret',
  },
  { field: 54, name: 'Additional amounts', type: 'an', length: 'LLLVAR', maxLength: 120 },
  { field: 60, name: 'Advice reason code (private)', type: 'ans', length: 'LLLVAR', maxLength: 999 },
  { field: 70, name: 'Network management information code', type: 'n', length: 'fixed', maxLength: 3 },
  { field: 90, name: 'Original data elements', type: 'n', length: 'fixed', maxLength: 42 },
  { field: 95, name: 'Replacement amounts', type: 'an', length: 'fixed', maxLength: 42 },
  {
    field: 126,
    name: 'Card verification data (CVV2, private)',
    type: 'n',
    length: 'LLVAR',
    maxLength: 4,
    sensitive: 'secret',
  },
]);
