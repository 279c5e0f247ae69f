import type { ApiFieldError } from '@cip/shared/contracts';
import type { FastifyInstance } from 'fastify';
import { isLosslessNumber, parse as parseLossless } from 'lossless-json';
import { LONE_SURROGATE } from '../common/safe-text.decorator';
import { ApiError } from './error-responses';

/** Deepest nesting of arrays and objects a body may have; no request of the API needs more than a few. */
export const MAX_JSON_DEPTH = 32;

const UTF8 = new TextDecoder('utf-8', { fatal: true, ignoreBOM: false });

/** Significant digits a JSON number keeps exactly through a binary double (DBL_DIG). */
export const MAX_EXACT_DIGITS = 15;
/**
 * Above this magnitude a number is left to its field's own rules (amounts answer 422 `amount_too_large`
 * from 1,000,000,000 USDC on); below it, more digits than a double keeps would be lost without a word.
 */
const EXACTNESS_CHECKED_BELOW = 1e9;
const NUMBER = /-?(?:0|[1-9]\d*)(?:\.\d+)?(?:[eE][+-]?\d+)?/y;

/** What one pass over JSON text finds before (and about) what JSON.parse builds of it. */
interface JsonTextScan {
  /** Arrays and objects nest deeper than the limit (the pass stops there). */
  tooDeep: boolean;
  /** The first number literal JSON.parse would silently round, if any. */
  inexact: string | null;
  /** A `\uD800`–`\uDFFF` escape: the only way a lone surrogate gets into text decoded as strict UTF-8. */
  surrogateEscape: boolean;
  /** A number literal with a fraction or an exponent (`12.50`, `1e2`): its text says more than its value. */
  fractional: boolean;
}

/** Whether a number literal has more significant digits than a double keeps, below the checked magnitude. */
function isInexact(literal: string): boolean {
  // Significant digits never outnumber the characters: short literals (almost all) need no more work.
  if (literal.length <= MAX_EXACT_DIGITS) return false;
  const mantissa = literal.replace(/^-/, '').replace(/[eE].*$/, '');
  const [whole, fraction = ''] = mantissa.split('.');
  const significant = `${whole}${fraction}`.replace(/^0+/, '').replace(/0+$/, '');
  return significant.length > MAX_EXACT_DIGITS && Math.abs(Number(literal)) < EXACTNESS_CHECKED_BELOW;
}

const isHexDigit8ToF = (c: number) =>
  (c >= 0x38 && c <= 0x39) || (c >= 0x61 && c <= 0x66) || (c >= 0x41 && c <= 0x46);

/**
 * One pass over JSON text, before anything is built: its depth (neither JSON.parse nor Fastify's secure
 * parser has a depth limit, and a deep object, once built, overflows the stack of every recursive walker
 * after the parser: the validation pipe, class-transformer, the idempotency identity), the numbers
 * JSON.parse would round (found on the text because the parsed value no longer shows what was sent: Node 20
 * gives revivers no source text), and whether any string can hold a lone surrogate at all.
 */
function scanJsonText(text: string, depthLimit: number): JsonTextScan {
  let depth = 0;
  let inString = false;
  let inexact: string | null = null;
  let surrogateEscape = false;
  let fractional = false;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (inString) {
      if (c === 0x5c) {
        const d = text.charCodeAt(i + 2);
        if (
          text.charCodeAt(i + 1) === 0x75 &&
          (d === 0x64 || d === 0x44) &&
          isHexDigit8ToF(text.charCodeAt(i + 3))
        ) {
          surrogateEscape = true;
        }
        i++;
      } else if (c === 0x22) inString = false;
    } else if (c === 0x22) inString = true;
    else if (c === 0x7b || c === 0x5b) {
      if (++depth > depthLimit) return { tooDeep: true, inexact, surrogateEscape, fractional };
    } else if (c === 0x7d || c === 0x5d) depth--;
    else if (c === 0x2d || (c >= 0x30 && c <= 0x39)) {
      NUMBER.lastIndex = i;
      const literal = NUMBER.exec(text)?.[0];
      if (!literal) continue;
      i += literal.length - 1;
      if (inexact === null && isInexact(literal)) inexact = literal;
      if (!fractional && /[.eE]/.test(literal)) fractional = true;
    }
  }
  return { tooDeep: false, inexact, surrogateEscape, fractional };
}

/** Whether JSON text nests arrays and objects deeper than `limit`. */
export const nestsDeeperThan = (text: string, limit: number): boolean => scanJsonText(text, limit).tooDeep;

/**
 * The first number literal of JSON text that JSON.parse would silently round (`1.00000000000000001` reads
 * as 1, and `0.1000000000000000055511151231257827` as 0.1): more than MAX_EXACT_DIGITS significant digits.
 */
export const inexactNumber = (text: string): string | null => scanJsonText(text, Infinity).inexact;

// ---------------------------------------------------------------------------------------------------
// The text of number literals, beside the parsed body (a side channel): `999.990` and `999.99` parse to the
// same double, and an amount is judged on the decimals its literal has (API-DECISIONS, money), so the DTOs of
// amounts (`@MoneyAmount`) read the literal of their field here. A side channel rather than another value in
// the body: every validator, controller and the idempotency identity keep seeing plain JSON numbers.
// The literals come from lossless-json (a maintained parser that hands each number over as its text), run
// only on bodies holding a literal with a fraction or an exponent (an integer's text is its value's) and
// only after the secure default parser accepted the text, so its refusals (syntax, prototype keys) and
// messages stay as they were. Node 20's JSON.parse gives revivers no source text (that needs Node 21+).
// ---------------------------------------------------------------------------------------------------

const NUMBER_LITERALS = new WeakMap<object, Map<string, string>>();

/**
 * The literal text of the number a parsed request body held at `holder[key]` (`'999.990'`), or undefined
 * when the body had no fraction or exponent anywhere (the value's own text is then the literal's).
 */
export function numberLiteral(holder: unknown, key: string): string | undefined {
  return holder !== null && typeof holder === 'object' ? NUMBER_LITERALS.get(holder)?.get(key) : undefined;
}

/** JSON text already accepted by the default parser, again, keeping every number literal's text. */
function parseKeepingLiterals(text: string): unknown {
  return parseLossless(
    text,
    function revive(this: object, key: string, value: unknown) {
      if (!isLosslessNumber(value)) return value;
      let literals = NUMBER_LITERALS.get(this);
      if (!literals) NUMBER_LITERALS.set(this, (literals = new Map()));
      literals.set(key, value.value);
      return Number(value.value);
    },
    // JSON.parse keeps the last of duplicate keys; so does the body here.
    { onDuplicateKey: ({ newValue }) => newValue },
  );
}

/** The path of the first number of a parsed body equal to `target` (to name the field of a literal). */
function fieldHolding(body: unknown, target: number): string | null {
  const pending: [unknown, string][] = [[body, '']];
  for (let next = pending.shift(); next; next = pending.shift()) {
    const [value, path] = next;
    if (value === target) return path || null;
    if (value && typeof value === 'object') {
      for (const [key, item] of Object.entries(value)) {
        pending.push([item, Array.isArray(value) ? `${path}[${key}]` : path ? `${path}.${key}` : key]);
      }
    }
  }
  return null;
}

/**
 * The first string (value or key) of a parsed body that is not well-formed Unicode, as a field error.
 * I-JSON (RFC 7493) forbids lone surrogates; validators choke on them (validator.js' isEmail throws).
 */
function illFormedString(body: unknown): ApiFieldError | null {
  const pending: [unknown, string][] = [[body, '']];
  for (let next = pending.pop(); next; next = pending.pop()) {
    const [value, path] = next;
    const field = path || 'body';
    if (typeof value === 'string' && LONE_SURROGATE.test(value)) {
      return { field, message: `${field} contains a lone surrogate (not a Unicode character)` };
    }
    if (value && typeof value === 'object') {
      for (const [key, item] of Object.entries(value)) {
        const child = Array.isArray(value) ? `${path}[${key}]` : path ? `${path}.${key}` : key;
        if (LONE_SURROGATE.test(key)) {
          return {
            field: child,
            message: 'a field name contains a lone surrogate (not a Unicode character)',
          };
        }
        pending.push([item, child]);
      }
    }
  }
  return null;
}

const CHARSET = /;\s*charset\s*=\s*"?([^";\s]*)"?/i;

/**
 * How request bodies are read: JSON objects in UTF-8, or nothing. An empty body reads as {} (POST /…/resume
 * and friends need none). Refused before any of it reaches a controller: compressed bodies and charsets other
 * than UTF-8 (415: the API does not guess), bytes that are not UTF-8, JSON nested deeper than MAX_JSON_DEPTH,
 * numbers JSON.parse would round, lone surrogates, prototype keys, and arrays or scalars as the body (400). HTML form posts are accepted by
 * the hosted pages only (under `hostedPagesPath`: the KYC verification form); any other type is a 415.
 */
export function installRequestBodies(fastify: FastifyInstance, hostedPagesPath: string): void {
  const parseJson = fastify.getDefaultJsonParser('error', 'error');
  fastify.removeAllContentTypeParsers();

  fastify.addHook('preParsing', async (request) => {
    const encoding = request.headers['content-encoding'];
    if (encoding !== undefined && encoding.trim().toLowerCase() !== 'identity') {
      throw new ApiError(
        'unsupported_media_type',
        'Content-Encoding is not supported; send the body uncompressed',
      );
    }
    const charset = CHARSET.exec(request.headers['content-type'] ?? '')?.[1]?.toLowerCase();
    if (charset !== undefined && charset !== 'utf-8' && charset !== 'utf8') {
      throw new ApiError('unsupported_media_type', 'Send the request body in UTF-8 (charset=utf-8)');
    }
  });

  const decode = (body: Buffer): string => {
    try {
      return UTF8.decode(body);
    } catch {
      throw new ApiError('validation_error', 'The request body is not valid UTF-8');
    }
  };

  fastify.addContentTypeParser('application/json', { parseAs: 'buffer' }, (request, body, done) => {
    let text: string;
    try {
      text = decode(body as Buffer);
    } catch (error) {
      return done(error as Error, undefined);
    }
    if (text.trim() === '') return done(null, {});
    const scan = scanJsonText(text, MAX_JSON_DEPTH);
    if (scan.tooDeep) {
      return done(
        new ApiError('validation_error', `The request body nests deeper than ${MAX_JSON_DEPTH} levels`),
        undefined,
      );
    }
    parseJson(request, text, (error, value) => {
      if (error) return done(error, undefined);
      if (value === null || typeof value !== 'object' || Array.isArray(value)) {
        return done(new ApiError('validation_error', 'The request body must be a JSON object'), undefined);
      }
      const inexact = scan.inexact;
      if (inexact) {
        const field = fieldHolding(value, Number(inexact)) ?? 'body';
        const message =
          `${field} has more than ${MAX_EXACT_DIGITS} significant digits (${inexact.slice(0, 40)}) and cannot ` +
          'be read exactly; amounts take at most 6 decimals';
        return done(
          new ApiError('validation_error', 'The request is invalid; see details', [{ field, message }]),
          undefined,
        );
      }
      const illFormed = scan.surrogateEscape ? illFormedString(value) : null;
      if (illFormed) {
        return done(
          new ApiError('validation_error', 'The request is invalid; see details', [illFormed]),
          undefined,
        );
      }
      done(null, scan.fractional ? parseKeepingLiterals(text) : value);
    });
  });

  fastify.addContentTypeParser(
    'application/x-www-form-urlencoded',
    { parseAs: 'buffer' },
    (request, body, done) => {
      if (!request.url.startsWith(hostedPagesPath)) {
        return done(
          new ApiError('unsupported_media_type', 'Send the request body as application/json'),
          undefined,
        );
      }
      try {
        done(null, Object.fromEntries(new URLSearchParams(decode(body as Buffer))));
      } catch (error) {
        done(error as Error, undefined);
      }
    },
  );
}
