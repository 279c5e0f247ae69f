import { IsoFormatError } from './errors';
import { F } from './field-spec';

// ---------------------------------------------------------------------------------------------------
// DE-048 (additional data, private) as a list of subelements, each `<id n2><length n2><data>`: the layout
// Mastercard uses for DE-048 (without its leading transaction category code), which jPOS-CMF leaves to the
// network. Hand-written because it is twenty lines and no codec on npm models private subelements.
// ---------------------------------------------------------------------------------------------------

/** The subelements of DE-048 this platform's dialect defines (docs/iso8583.md). */
export const DE048 = {
  /**
   * 63, original transaction trace: the RRN (DE-037) of the payment a refund 0100 gives money back for, from
   * the same acquirer (Mastercard links refunds to their purchase by a trace id in 48.63 too).
   */
  ORIGINAL_RRN: '63',
  /**
   * 42, electronic commerce indicator of a 3-D Secure authenticated e-commerce 0100: the EMV 3DS ECI, two
   * digits (`05` authenticated, `06` attempted, `07` none). Mastercard's 48.42 carries its three-digit
   * security level indicator here; the platform's dialect carries the ECI the ACS returned as is.
   */
  ECI: '42',
  /**
   * 43, the 3-D Secure authentication value (Mastercard's UCAF / AAV field, Visa's CAVV in 126.9): the
   * ACS's authenticationValue, 28 base64 characters.
   */
  AUTHENTICATION_VALUE: '43',
} as const;

/** DE-048's value for `elements` (absent ones skipped); undefined when none is present. */
export function writeSubelements(elements: Record<string, string | undefined>): string | undefined {
  let out = '';
  for (const [id, data] of Object.entries(elements)) {
    if (data === undefined) continue;
    if (!/^\d{2}$/.test(id) || data.length > 99) {
      throw new IsoFormatError(F.ADDITIONAL_DATA_PRIVATE, 'too_long', `subelement ${id}`);
    }
    out += id + String(data.length).padStart(2, '0') + data;
  }
  return out === '' ? undefined : out;
}

/** The subelements of a DE-048 value; throws `IsoFormatError` when it does not parse. */
export function readSubelements(value: string | undefined): Record<string, string> {
  const elements: Record<string, string> = {};
  let at = 0;
  while (value !== undefined && at < value.length) {
    const id = value.slice(at, at + 2);
    const length = value.slice(at + 2, at + 4);
    if (!/^\d{2}$/.test(id) || !/^\d{2}$/.test(length) || at + 4 + Number(length) > value.length) {
      throw new IsoFormatError(F.ADDITIONAL_DATA_PRIVATE, 'bad_length_prefix', `subelement at ${at}`);
    }
    elements[id] = value.slice(at + 4, at + 4 + Number(length));
    at += 4 + Number(length);
  }
  return elements;
}
