import { IsoFormatError } from './errors';
import { CIP_FIELD_SPEC, type FieldSpec, type FieldSpecTable } from './field-spec';
import { IsoMessage } from './iso-message';

// Hand-written rather than the npm `iso_8583` package (2.6.7): its unpacker is `@ts-nocheck`, parses the bitmap
// through a hex string split into one number per bit, decodes LLVAR data with the *bitmap's* encoding, falls back
// to reading a non-digit length prefix as binary, never checks that a field fits in what is left of the buffer,
// and reports errors as returned objects; its length header and bitmap layout were long hard-coded
// (zemuldo/iso_8583#14, #36, #81). Nothing on npm does the link (matching, echo, reconnect) either. This codec
// walks the declarative table in field-spec.ts (the approach of moov-io/iso8583): one buffer per encoded
// message, no regex, no JSON, typed errors. The evaluation is in the lib's README.

export interface IsoCodecOptions {
  /** Default: the platform dialect {@link CIP_FIELD_SPEC}. */
  spec?: FieldSpecTable;
  /** Bitmaps as 8 raw bytes each (default, as jPOS-CMF) or as 16 ASCII hex characters each. */
  bitmap?: 'binary' | 'hex';
}

const ZERO = 0x30;
const NINE = 0x39;
const SPACE = 0x20;
const HEX = '0123456789ABCDEF';

function isAllowed(type: FieldSpec['type'], code: number): boolean {
  switch (type) {
    case 'n':
      return code >= ZERO && code <= NINE;
    case 'an':
      return (
        (code >= ZERO && code <= NINE) ||
        (code >= 0x41 && code <= 0x5a) ||
        (code >= 0x61 && code <= 0x7a) ||
        code === SPACE
      );
    case 'ans':
      return code >= SPACE && code <= 0x7e;
    case 'z':
      // Track 2 (ISO 7813): digits, '=' or 'D' as the field separator.
      return (code >= ZERO && code <= NINE) || code === 0x3d || code === 0x44;
    case 'b':
      return true;
  }
}

function prefixDigits(spec: FieldSpec): number {
  return spec.length === 'LLVAR' ? 2 : spec.length === 'LLLVAR' ? 3 : 0;
}

/** Encodes and decodes messages of one dialect. Stateless apart from a scratch buffer: share one per process. */
export class IsoCodec {
  readonly spec: FieldSpecTable;
  private readonly hexBitmap: boolean;
  private readonly bitmap = new Uint8Array(16);

  constructor(options: IsoCodecOptions = {}) {
    this.spec = options.spec ?? CIP_FIELD_SPEC;
    this.hexBitmap = options.bitmap === 'hex';
  }

  /**
   * The message as bytes, after `reserve` unused leading bytes (room for a frame header, so framing does not
   * copy). Throws {@link IsoFormatError} naming the first field that does not fit its spec.
   */
  encode(message: IsoMessage, reserve = 0): Buffer {
    const mti = message.mti;
    if (typeof mti !== 'string' || mti.length !== 4 || !this.allDigits(mti)) {
      throw new IsoFormatError(0, 'bad_mti', 'the MTI is four digits');
    }
    const bitmap = this.bitmap;
    bitmap.fill(0);
    let secondary = false;
    let size = 4;
    for (let field = 2; field <= 128; field++) {
      const value = message.valueAt(field);
      if (value === undefined) continue;
      const spec = this.spec[field];
      if (!spec) throw new IsoFormatError(field, 'not_in_spec', 'the dialect does not carry this field');
      size += this.encodedSize(spec, value);
      bitmap[(field - 1) >> 3] |= 0x80 >> ((field - 1) & 7);
      if (field > 64) secondary = true;
    }
    if (secondary) bitmap[0] |= 0x80;
    const bitmapBytes = secondary ? 16 : 8;
    size += this.hexBitmap ? bitmapBytes * 2 : bitmapBytes;

    const out = Buffer.allocUnsafe(reserve + size);
    let at = reserve + out.write(mti, reserve, 'latin1');
    if (this.hexBitmap) {
      for (let i = 0; i < bitmapBytes; i++) {
        out[at++] = HEX.charCodeAt(bitmap[i] >> 4);
        out[at++] = HEX.charCodeAt(bitmap[i] & 15);
      }
    } else {
      for (let i = 0; i < bitmapBytes; i++) out[at++] = bitmap[i];
    }
    for (let field = 2; field <= 128; field++) {
      const value = message.valueAt(field);
      if (value === undefined) continue;
      at = this.writeField(out, at, this.spec[field] as FieldSpec, value);
    }
    return out;
  }

  /**
   * The message in `buffer[start, end)`. Throws {@link IsoFormatError} (never anything else) on malformed
   * input: truncated data, unknown fields, bad length prefixes, characters outside the field's type.
   */
  decode(buffer: Buffer, start = 0, end = buffer.length): IsoMessage {
    if (end - start < 4) throw new IsoFormatError(0, 'truncated', 'shorter than an MTI');
    const mti = buffer.toString('latin1', start, start + 4);
    if (!this.allDigits(mti)) throw new IsoFormatError(0, 'bad_mti', 'the MTI is four digits');
    let at = start + 4;
    const bitmap = this.bitmap;
    at = this.readBitmap(buffer, at, end, bitmap, 0);
    const bitmapBytes = bitmap[0] & 0x80 ? 16 : 8;
    if (bitmapBytes === 16) at = this.readBitmap(buffer, at, end, bitmap, 8);
    if (bitmapBytes === 16 && bitmap[8] & 0x80) {
      throw new IsoFormatError(65, 'not_in_spec', 'tertiary bitmaps are not supported');
    }

    const message = new IsoMessage(mti, undefined, this.spec);
    const last = bitmapBytes * 8;
    for (let field = 2; field <= last; field++) {
      if (!(bitmap[(field - 1) >> 3] & (0x80 >> ((field - 1) & 7)))) continue;
      const spec = this.spec[field];
      if (!spec) throw new IsoFormatError(field, 'not_in_spec', 'the dialect does not carry this field');
      let length = spec.maxLength;
      const digits = prefixDigits(spec);
      if (digits) {
        if (end - at < digits) throw new IsoFormatError(field, 'truncated', 'length prefix cut off');
        length = 0;
        for (let i = 0; i < digits; i++) {
          const code = buffer[at + i];
          if (code < ZERO || code > NINE) throw new IsoFormatError(field, 'bad_length_prefix', 'not digits');
          length = length * 10 + (code - ZERO);
        }
        at += digits;
        if (length > spec.maxLength) {
          throw new IsoFormatError(field, 'too_long', `${length} > max ${spec.maxLength}`);
        }
      }
      if (end - at < length) throw new IsoFormatError(field, 'truncated', `${length} bytes announced`);
      if (spec.type === 'b') {
        message.set(field, Buffer.from(buffer.subarray(at, at + length)));
      } else {
        for (let i = at; i < at + length; i++) {
          if (!isAllowed(spec.type, buffer[i])) {
            throw new IsoFormatError(field, 'bad_character', `position ${i - at + 1} is not ${spec.type}`);
          }
        }
        message.set(field, buffer.toString('latin1', at, at + length));
      }
      at += length;
    }
    if (at !== end) throw new IsoFormatError(0, 'trailing_bytes', `${end - at} bytes after the last field`);
    return message;
  }

  private readBitmap(buffer: Buffer, at: number, end: number, into: Uint8Array, offset: number): number {
    if (!this.hexBitmap) {
      if (end - at < 8) throw new IsoFormatError(1, 'truncated', 'bitmap cut off');
      for (let i = 0; i < 8; i++) into[offset + i] = buffer[at + i];
      return at + 8;
    }
    if (end - at < 16) throw new IsoFormatError(1, 'truncated', 'bitmap cut off');
    for (let i = 0; i < 8; i++) {
      const high = hexValue(buffer[at + 2 * i]);
      const low = hexValue(buffer[at + 2 * i + 1]);
      if (high < 0 || low < 0) throw new IsoFormatError(1, 'bad_bitmap', 'not hex');
      into[offset + i] = (high << 4) | low;
    }
    return at + 16;
  }

  private encodedSize(spec: FieldSpec, value: string | Buffer): number {
    const field = spec.field;
    const binary = spec.type === 'b';
    if (binary !== value instanceof Buffer) {
      throw new IsoFormatError(field, 'wrong_value_type', binary ? 'expects a Buffer' : 'expects a string');
    }
    const length = value.length;
    if (length > spec.maxLength)
      throw new IsoFormatError(field, 'too_long', `${length} > max ${spec.maxLength}`);
    if (spec.length === 'fixed') {
      if (binary && length !== spec.maxLength) {
        throw new IsoFormatError(field, 'wrong_length', `${length} bytes, expected ${spec.maxLength}`);
      }
      if (!binary) this.checkText(spec, value as string);
      return spec.maxLength;
    }
    if (!binary) this.checkText(spec, value as string);
    return prefixDigits(spec) + length;
  }

  private checkText(spec: FieldSpec, value: string): void {
    for (let i = 0; i < value.length; i++) {
      if (!isAllowed(spec.type, value.charCodeAt(i))) {
        throw new IsoFormatError(spec.field, 'bad_character', `position ${i + 1} is not ${spec.type}`);
      }
    }
  }

  private writeField(out: Buffer, at: number, spec: FieldSpec, value: string | Buffer): number {
    const length = value.length;
    const digits = prefixDigits(spec);
    if (digits === 3) out[at++] = ZERO + Math.floor(length / 100);
    if (digits >= 2) {
      out[at++] = ZERO + (Math.floor(length / 10) % 10);
      out[at++] = ZERO + (length % 10);
    }
    if (value instanceof Buffer) {
      value.copy(out, at);
      return at + length;
    }
    const pad = digits ? 0 : spec.maxLength - length;
    // Fixed fields shorter than their length are padded: numbers with leading zeros, text with trailing spaces.
    if (pad && spec.type === 'n') {
      out.fill(ZERO, at, at + pad);
      at += pad;
    }
    at += out.write(value as string, at, 'latin1');
    if (pad && spec.type !== 'n') {
      out.fill(SPACE, at, at + pad);
      at += pad;
    }
    return at;
  }

  private allDigits(text: string): boolean {
    for (let i = 0; i < text.length; i++) {
      const code = text.charCodeAt(i);
      if (code < ZERO || code > NINE) return false;
    }
    return true;
  }
}

function hexValue(code: number): number {
  if (code >= ZERO && code <= NINE) return code - ZERO;
  if (code >= 0x41 && code <= 0x46) return code - 0x37;
  if (code >= 0x61 && code <= 0x66) return code - 0x57;
  return -1;
}
