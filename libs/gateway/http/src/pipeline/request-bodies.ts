import type { ApiFieldError } from '@cip/shared/contracts';
import type { FastifyInstance } from 'fastify';
import { LONE_SURROGATE } from '../common/safe-text.decorator';
import { ApiError } from './error-responses';

/** Deepest nesting of arrays and objects a body may have; no request of the API needs more than a few. */
export const MAX_JSON_DEPTH = 32;

const UTF8 = new TextDecoder('utf-8', { fatal: true, ignoreBOM: false });

/**
 * Whether JSON text nests arrays and objects deeper than `limit`, found by one pass over the text, before
 * anything is built. Hand-written because neither JSON.parse nor Fastify's secure parser has a depth limit,
 * and a deep object, once built, overflows the stack of every recursive walker after the parser (the
 * validation pipe, class-transformer, the idempotency identity).
 */
export function nestsDeeperThan(text: string, limit: number): boolean {
  let depth = 0;
  let inString = false;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (inString) {
      if (c === 0x5c) i++;
      else if (c === 0x22) inString = false;
    } else if (c === 0x22) inString = true;
    else if (c === 0x7b || c === 0x5b) {
      if (++depth > limit) return true;
    } else if (c === 0x7d || c === 0x5d) depth--;
  }
  return false;
}

/** Significant digits a JSON number keeps exactly through a binary double (DBL_DIG). */
export const MAX_EXACT_DIGITS = 15;
/**
 * Above this magnitude a number is left to its field's own rules (amounts answer 422 `amount_too_large`
 * from 1,000,000,000 USDC on); below it, more digits than a double keeps would be lost without a word.
 */
const EXACTNESS_CHECKED_BELOW = 1e9;
const NUMBER = /-?(?:0|[1-9]\d*)(?:\.\d+)?(?:[eE][+-]?\d+)?/y;

/**
 * The first number literal of JSON text that JSON.parse would silently round (`1.00000000000000001` reads
 * as 1, and `0.1000000000000000055511151231257827` as 0.1): more than MAX_EXACT_DIGITS significant digits.
 * Found on the text, because the parsed value no longer shows what was sent (Node 20 gives revivers no
 * source text).
 */
export function inexactNumber(text: string): string | null {
  let inString = false;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (inString) {
      if (c === 0x5c) i++;
      else if (c === 0x22) inString = false;
      continue;
    }
    if (c === 0x22) {
      inString = true;
      continue;
    }
    if (c !== 0x2d && (c < 0x30 || c > 0x39)) continue;
    NUMBER.lastIndex = i;
    const literal = NUMBER.exec(text)?.[0];
    if (!literal) continue;
    i += literal.length - 1;
    const mantissa = literal.replace(/^-/, '').replace(/[eE].*$/, '');
    const [whole, fraction = ''] = mantissa.split('.');
    const significant = `${whole}${fraction}`.replace(/^0+/, '').replace(/0+$/, '');
    if (significant.length > MAX_EXACT_DIGITS && Math.abs(Number(literal)) < EXACTNESS_CHECKED_BELOW) {
      return literal;
    }
  }
  return null;
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
    if (nestsDeeperThan(text, MAX_JSON_DEPTH)) {
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
      const inexact = inexactNumber(text);
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
      const illFormed = illFormedString(value);
      if (illFormed) {
        return done(
          new ApiError('validation_error', 'The request is invalid; see details', [illFormed]),
          undefined,
        );
      }
      done(null, value);
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
