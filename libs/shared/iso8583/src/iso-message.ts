import { inspect } from 'node:util';
import { CIP_FIELD_SPEC, type FieldSpecTable } from './field-spec';

/** Text fields are strings (ASCII), binary fields (`b`) are Buffers. */
export type FieldValue = string | Buffer;

const MASK = '[redacted]';

/**
 * One ISO 8583 message: an MTI and its data elements by number (2..128). Bitmaps are derived when encoding.
 * `toJSON`, `toString` and `util.inspect` mask the PAN (last four digits only), expiry, track 2, PIN block and
 * CVV2, so a message that reaches a logger or an error never carries card secrets.
 */
export class IsoMessage {
  /** Indexed by field number; an array beats a Map on the hot path (no hashing, no iterator objects). */
  private readonly values: (FieldValue | undefined)[] = new Array(129);

  constructor(
    public mti: string,
    /** Absent (undefined) values are skipped, so `{ [F.RRN]: request.get(F.RRN) }` copies a field only if set. */
    fields?: Readonly<Record<number, FieldValue | undefined>>,
    /** The table `toJSON` masks by; the codec sets it to the table it decoded with. */
    readonly spec: FieldSpecTable = CIP_FIELD_SPEC,
  ) {
    if (fields) for (const key of Object.keys(fields)) this.set(Number(key), fields[Number(key)]);
  }

  /** A text field's value; undefined when absent or binary. */
  get(field: number): string | undefined {
    const value = this.values[field];
    return typeof value === 'string' ? value : undefined;
  }

  /** A binary field's value; undefined when absent or text. */
  getBinary(field: number): Buffer | undefined {
    const value = this.values[field];
    return value instanceof Buffer ? value : undefined;
  }

  has(field: number): boolean {
    return this.values[field] !== undefined;
  }

  set(field: number, value: FieldValue | undefined): this {
    if (!Number.isInteger(field) || field < 2 || field > 128 || field === 65) {
      throw new RangeError(`field ${field}: not a data field`);
    }
    this.values[field] = value;
    return this;
  }

  delete(field: number): this {
    this.values[field] = undefined;
    return this;
  }

  /** Present field numbers, ascending. */
  fieldNumbers(): number[] {
    const present: number[] = [];
    for (let field = 2; field <= 128; field++) if (this.values[field] !== undefined) present.push(field);
    return present;
  }

  /** Raw access for the codec: no copy. */
  valueAt(field: number): FieldValue | undefined {
    return this.values[field];
  }

  /** A masked, log-safe view: `{mti, fields: {"2": "************1111", "52": "[redacted]", ...}}`. */
  toJSON(): { mti: string; fields: Record<string, string> } {
    const fields: Record<string, string> = {};
    for (const field of this.fieldNumbers()) fields[field] = this.safeValue(field);
    return { mti: this.mti, fields };
  }

  toString(): string {
    return `IsoMessage ${JSON.stringify(this.toJSON())}`;
  }

  [inspect.custom](): string {
    return this.toString();
  }

  private safeValue(field: number): string {
    const value = this.values[field] as FieldValue;
    const sensitive = this.spec[field]?.sensitive;
    if (sensitive === 'secret') return MASK;
    if (sensitive === 'pan') {
      const text = typeof value === 'string' ? value : '';
      return text.length > 4 ? '*'.repeat(text.length - 4) + text.slice(-4) : MASK;
    }
    // A field outside the table has unknown sensitivity: render nothing of it.
    if (!this.spec[field]) return MASK;
    return typeof value === 'string' ? value : `<${value.length} bytes>`;
  }
}

/** The response MTI of a request or advice: 0100 -> 0110, 0120 -> 0130, 0800 -> 0810. */
export function responseMtiOf(mti: string): string {
  return mti.slice(0, 2) + String(Number(mti[2]) + 1) + mti[3];
}

/** Requests and advices (function digit 0 or 2) expect a response; responses (1 or 3) answer one. */
export function isResponseMti(mti: string): boolean {
  const fn = mti.charCodeAt(2);
  return fn === 0x31 || fn === 0x33;
}
