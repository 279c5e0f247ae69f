import { buildMessage, ValidateBy, ValidationOptions } from 'class-validator';

/** A UTF-16 surrogate without its other half: not a character, and a crash in some validators. */
export const LONE_SURROGATE = /[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/;

/**
 * What human text never needs and attackers use: C0 and C1 controls (NUL included) break logs, terminals
 * and downstream systems; bidirectional embeddings, overrides, isolates and marks reorder what a reader sees
 * (a name displayed as something else, "Trojan Source").
 */
// eslint-disable-next-line no-control-regex -- finding control characters is the point
const CONTROL_OR_BIDI = /[\u0000-\u001f\u007f-\u009f\u061c\u200e\u200f\u202a-\u202e\u2066-\u2069]/;

/** Whether a string is safe human text: no control characters, lone surrogates or bidirectional controls. */
export function isSafeText(value: unknown): boolean {
  return typeof value === 'string' && !CONTROL_OR_BIDI.test(value) && !LONE_SURROGATE.test(value);
}

/**
 * Person names, emails and free text (reasons, descriptions, merchant names, addresses: anything a human
 * typed): refuses control characters (NUL, C0, C1), lone surrogates and bidirectional controls with a
 * `validation_error` naming the field. Also refuses a value that is not a string.
 */
export const IsSafeText = (options?: ValidationOptions) =>
  ValidateBy(
    {
      name: 'isSafeText',
      validator: {
        validate: (value) => isSafeText(value),
        defaultMessage: buildMessage(
          (each) =>
            `${each}$property must be text without control characters, lone surrogates or bidirectional controls`,
          options,
        ),
      },
    },
    options,
  );
