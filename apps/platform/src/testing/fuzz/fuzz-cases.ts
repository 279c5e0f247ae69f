import { gzipSync } from 'node:zlib';
import type { FuzzOperation, FuzzParameter, FuzzSchema } from './openapi-operations';
import {
  ABSURD_IDS,
  encodeJson,
  INVALID_UTF8,
  NUMBER_TEXTS,
  QUERY_VALUES,
  RawJson,
  SeededRandom,
  STRING_KINDS,
} from './fuzz-values';

/** One request of the campaign: everything needed to send it again, byte for byte. */
export interface FuzzRequest {
  /** What was varied, e.g. `body.firstName: bidi isolate U+2067`. */
  name: string;
  method: string;
  /** Path and query, already percent-encoded as sent on the wire. */
  target: string;
  headers: Record<string, string>;
  body?: Buffer;
  /** A Content-Length different from the body's length (a body shorter or longer than announced). */
  contentLength?: number;
  /** The request is incomplete: the server may close the connection without answering (after its timeout). */
  incomplete?: boolean;
  /** A field the request made invalid: a 400 must name it in `details`. */
  field?: string;
  /** The value must be refused (control characters, lone surrogates, bidi controls): a 2xx is a failure. */
  mustReject?: boolean;
}

/** Values a request needs to get past the 404s: real ids by parameter or field name, a reachable url. */
export type KnownValues = Record<string, string>;

const JSON_TYPE = { 'content-type': 'application/json' };
/** Nesting far beyond any sane body (and beyond recursive parsers and walkers' stacks). */
const DEEP = 100_000;

const describeChar = (text: string) =>
  [...text]
    .slice(0, 3)
    .map((c) => `U+${c.codePointAt(0)!.toString(16).toUpperCase().padStart(4, '0')}`)
    .join(' ');

/** A valid value for a schema: example, enum, known value by name, else something of the right type. */
export function validValue(schema: FuzzSchema, name: string, known: KnownValues): unknown {
  if (known[name] !== undefined) return known[name];
  if (schema.example !== undefined && !schema.types.includes('object')) return schema.example;
  if (schema.enum?.length) return schema.enum[0];
  const type = schema.types[0] ?? (Object.keys(schema.properties).length ? 'object' : 'string');
  switch (type) {
    case 'object':
      return Object.fromEntries(
        Object.entries(schema.properties).map(([key, sub]) => [key, validValue(sub, key, known)]),
      );
    case 'array':
      return schema.items ? [validValue(schema.items, name, known)] : [];
    case 'integer':
    case 'number':
      return schema.minimum ?? 1;
    case 'boolean':
      return true;
    default:
      return schema.format === 'email' ? 'fuzz@example.com' : 'x';
  }
}

/** Replaces (or with `undefined`, removes) the value at `path` in a copy of `body`. */
function withValue(body: unknown, path: string[], value: unknown): unknown {
  if (!path.length) return value;
  const [head, ...rest] = path;
  const copy = { ...(body as Record<string, unknown>) };
  if (rest.length === 0 && value === undefined) delete copy[head];
  else copy[head] = withValue(copy[head], rest, value);
  return copy;
}

function deepObject(depth: number): RawJson {
  return RawJson.text('{"a":'.repeat(depth) + '1' + '}'.repeat(depth));
}

function deepArray(depth: number): RawJson {
  return RawJson.text('['.repeat(depth) + ']'.repeat(depth));
}

interface FieldCase {
  name: string;
  body: unknown;
  field: string;
  mustReject?: boolean;
  /** The body is refused as a whole (not JSON, too deep) rather than for this field. */
  wholeBody?: boolean;
}

/** Per field of the body: wrong types, null, missing, awkward text, extreme numbers, shapes swapped. */
function fieldCases(
  schema: FuzzSchema,
  required: boolean,
  base: unknown,
  path: string[],
  random: SeededRandom,
): FieldCase[] {
  const field = path.join('.');
  const at = (value: unknown) => withValue(base, path, value);
  const baseValue = path.reduce<unknown>((v, key) => (v as Record<string, unknown>)?.[key], base);
  // With one declared type, a value of another type must be refused; an undeclared type proves nothing.
  const typed = schema.types.length === 1;
  const type = schema.types[0] ?? 'string';
  const wrongUnless = (expected: string) => typed && type !== expected;
  const cases: FieldCase[] = [
    { name: 'missing', body: at(undefined), field, mustReject: required },
    { name: 'null', body: at(null), field, mustReject: required && typed && !schema.nullable },
    { name: 'boolean', body: at(true), field, mustReject: wrongUnless('boolean') },
    { name: 'array of the value', body: at([baseValue]), field, mustReject: wrongUnless('array') },
    { name: 'empty array', body: at([]), field, mustReject: wrongUnless('array') },
    // Refused as a whole body (too deep), so the answer need not name the field.
    { name: 'deeply nested object', body: at(deepObject(DEEP)), field, wholeBody: true, mustReject: true },
    { name: 'deeply nested array', body: at(deepArray(DEEP)), field, wholeBody: true, mustReject: true },
  ];
  if (type !== 'object') {
    cases.push({ name: 'object', body: at({ value: baseValue }), field, mustReject: typed });
  }
  if (type === 'object') {
    cases.push({ name: 'string instead of object', body: at('x'), field, mustReject: typed });
    cases.push({ name: 'array of objects', body: at([baseValue, baseValue]), field, mustReject: typed });
    cases.push({ name: 'empty object', body: at({}), field });
    for (const [key, sub] of Object.entries(schema.properties)) {
      cases.push(...fieldCases(sub, schema.required.includes(key), base, [...path, key], random));
    }
  } else if (type === 'array') {
    cases.push({ name: 'object instead of array', body: at({ 0: baseValue }), field, mustReject: typed });
    cases.push({ name: '100k items', body: at(new Array(100_000).fill(baseValue)), field });
  } else if (type === 'number' || type === 'integer') {
    cases.push({ name: 'numeric string', body: at(String(baseValue)), field, mustReject: typed });
    for (const { kind, members } of NUMBER_TEXTS) {
      const text = random.pick(members);
      cases.push({ name: `${kind} ${text}`, body: at(RawJson.text(text)), field });
    }
  } else {
    const text = typeof baseValue === 'string' ? baseValue : 'x';
    cases.push({ name: 'number', body: at(1), field, mustReject: typed });
    cases.push({ name: 'number 1e309', body: at(RawJson.text('1e309')), field, mustReject: typed });
    for (const { kind, members, rejected, whole } of STRING_KINDS) {
      const member = random.pick(members);
      const value = whole ? member : `${text}${member}`;
      const label = member.length > 16 ? `${member.length} chars` : describeChar(member);
      cases.push({ name: `${kind} ${label}`, body: at(value), field, mustReject: rejected });
    }
    for (const { kind, bytes } of INVALID_UTF8) {
      const raw = new RawJson(
        Buffer.concat([Buffer.from(JSON.stringify(text).slice(0, -1)), Buffer.from(bytes), Buffer.from('"')]),
      );
      cases.push({ name: `not UTF-8: ${kind}`, body: at(raw), field, wholeBody: true, mustReject: true });
    }
  }
  return cases;
}

/** Bodies that are wrong as a whole: not an object, not JSON, hostile JSON, too big, too deep. */
function wholeBodyCases(base: unknown): { name: string; body: unknown; field?: string; mayPass?: boolean }[] {
  const text = encodeJson(base).toString('utf8');
  const inner = text.slice(1, -1);
  return [
    { name: 'array instead of object', body: [base] },
    { name: 'string instead of object', body: 'x' },
    { name: 'number instead of object', body: 1 },
    { name: 'null body', body: null },
    { name: 'empty object', body: {}, mayPass: true },
    { name: 'extra field', body: { ...(base as object), unexpectedField: 1 }, field: 'unexpectedField' },
    {
      name: '__proto__ key',
      body: RawJson.text(`{${inner}${inner ? ',' : ''}"__proto__":{"isAdmin":true}}`),
    },
    {
      name: 'constructor.prototype key',
      body: RawJson.text(`{"constructor":{"prototype":{"isAdmin":true}}${inner ? ',' : ''}${inner}}`),
    },
    {
      name: 'duplicate keys',
      body: RawJson.text(`{${inner}${inner ? ',' : ''}${inner || '"a":1'}}`),
      mayPass: true,
    },
    { name: 'depth 33', body: deepObject(33) },
    { name: 'depth 100k objects', body: deepObject(DEEP) },
    { name: 'depth 100k arrays', body: deepArray(DEEP) },
    { name: 'truncated JSON', body: RawJson.text(text.slice(0, Math.max(1, text.length - 2))) },
    { name: 'trailing garbage', body: RawJson.text(`${text}}`) },
    { name: 'two documents', body: RawJson.text(`${text}${text}`) },
    { name: 'single quotes', body: RawJson.text(text.replace(/"/g, "'")) },
    { name: 'NaN literal', body: RawJson.text('{"a":NaN}') },
    { name: 'comment', body: RawJson.text(`/* c */${text}`) },
    {
      name: 'byte order mark',
      body: new RawJson(Buffer.concat([Buffer.from([0xef, 0xbb, 0xbf]), Buffer.from(text)])),
      mayPass: true,
    },
    {
      name: 'NUL byte after the document',
      body: new RawJson(Buffer.concat([Buffer.from(text), Buffer.from([0])])),
    },
    {
      name: 'invalid UTF-8 key',
      body: new RawJson(Buffer.concat([Buffer.from('{"'), Buffer.from([0xff, 0xfe]), Buffer.from('":1}')])),
    },
    {
      name: 'nearly 1 MB of whitespace',
      body: RawJson.text(`${' '.repeat(1024 * 1024 - text.length - 16)}${text}`),
      mayPass: true,
    },
    { name: '2 MB string field', body: { ...(base as object), padding: 'a'.repeat(2 * 1024 * 1024) } },
    {
      name: '100k-key object',
      body: RawJson.text(`{${Array.from({ length: 100_000 }, (_, i) => `"k${i}":1`).join(',')}}`),
    },
  ];
}

let bomb: Buffer | undefined;
/** 50 MB of JSON in about 50 kB of gzip (made once: compressing it takes a while). */
const gzipBomb = () => (bomb ??= gzipSync(Buffer.from(`{"a":"${'a'.repeat(50 * 1024 * 1024)}"}`)));

/** Content types, encodings and framings around an otherwise valid body. */
function transportCases(base: unknown): (Omit<FuzzRequest, 'method' | 'target'> & { mayPass?: boolean })[] {
  const json = encodeJson(base);
  const latin1 = Buffer.from(json.toString('utf8').replace(/"[^"]*"\s*}$/, '"Jos\u00e9"}'), 'latin1');
  return [
    { name: 'no body, no content-type', headers: {}, mayPass: true },
    { name: 'empty JSON body', headers: JSON_TYPE, body: Buffer.alloc(0), mayPass: true },
    { name: 'whitespace JSON body', headers: JSON_TYPE, body: Buffer.from(' \r\n\t '), mayPass: true },
    { name: 'body without content-type', headers: {}, body: json },
    { name: 'text/plain', headers: { 'content-type': 'text/plain' }, body: json },
    {
      name: 'form',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: Buffer.from('a=1&b=%FF%00'),
    },
    {
      name: 'multipart',
      headers: { 'content-type': 'multipart/form-data; boundary=XyZ' },
      body: Buffer.from('--XyZ\r\ncontent-disposition: form-data; name="a"\r\n\r\n1\r\n--XyZ--\r\n'),
    },
    {
      name: 'application/xml',
      headers: { 'content-type': 'application/xml' },
      body: Buffer.from('<a>1</a>'),
    },
    { name: 'charset=latin1', headers: { 'content-type': 'application/json; charset=latin1' }, body: latin1 },
    {
      name: 'charset=utf-16le',
      headers: { 'content-type': 'application/json; charset=utf-16le' },
      body: Buffer.from(json.toString('utf8'), 'utf16le'),
    },
    {
      name: 'content-type with broken parameters',
      headers: { 'content-type': 'application/json; charset="' },
      body: json,
    },
    { name: 'two content-types', headers: { 'content-type': 'application/json, text/html' }, body: json },
    { name: 'vendor json', headers: { 'content-type': 'application/vnd.api+json' }, body: json },
    {
      name: 'gzip with junk',
      headers: { ...JSON_TYPE, 'content-encoding': 'gzip' },
      body: Buffer.from('not gzip at all'),
    },
    { name: 'gzip of the body', headers: { ...JSON_TYPE, 'content-encoding': 'gzip' }, body: gzipSync(json) },
    {
      name: 'deflate with junk',
      headers: { ...JSON_TYPE, 'content-encoding': 'deflate' },
      body: Buffer.from([0x78, 0x9c, 1, 2, 3]),
    },
    {
      name: 'br with junk',
      headers: { ...JSON_TYPE, 'content-encoding': 'br' },
      body: Buffer.from([0xff, 0xff]),
    },
    {
      name: 'unknown content-encoding',
      headers: { ...JSON_TYPE, 'content-encoding': 'x-rot13' },
      body: json,
    },
    { name: 'gzip bomb', headers: { ...JSON_TYPE, 'content-encoding': 'gzip' }, body: gzipBomb() },
    { name: '2 MB body', headers: JSON_TYPE, body: Buffer.from(`{"a":"${'a'.repeat(2 * 1024 * 1024)}"}`) },
    {
      name: 'body longer than its Content-Length',
      headers: JSON_TYPE,
      body: json,
      contentLength: Math.max(1, json.length - 3),
    },
    {
      name: 'body shorter than its Content-Length',
      headers: JSON_TYPE,
      body: json.subarray(0, Math.floor(json.length / 2)),
      contentLength: json.length,
      incomplete: true,
    },
    {
      name: 'Content-Length but no body',
      headers: JSON_TYPE,
      body: Buffer.alloc(0),
      contentLength: 100,
      incomplete: true,
    },
  ];
}

/** Header values around an otherwise valid request: idempotency keys, request ids, API keys. */
function headerCases(
  method: string,
  isPublic: boolean,
): (Omit<FuzzRequest, 'method' | 'target' | 'body'> & { mayPass?: boolean })[] {
  const cases: (Omit<FuzzRequest, 'method' | 'target' | 'body'> & { mayPass?: boolean })[] = [
    { name: 'x-request-id hostile', headers: { 'x-request-id': '../../\u00e9;$(id)' }, mayPass: true },
    // A public operation reads no key, so a hostile one may pass; it must still never be a 5xx.
    { name: 'x-api-key latin-1', headers: { 'x-api-key': 'sk_sandbox_\u00e9\u00ff' }, mayPass: isPublic },
    {
      name: 'x-api-key huge',
      headers: { 'x-api-key': `sk_sandbox_${'a'.repeat(8_000)}` },
      mayPass: isPublic,
    },
  ];
  if (method === 'POST' || method === 'PUT') {
    cases.push(
      { name: 'x-idempotency-key empty', headers: { 'x-idempotency-key': '' }, mayPass: true },
      { name: 'x-idempotency-key 65 chars', headers: { 'x-idempotency-key': 'k'.repeat(65) } },
      {
        name: 'x-idempotency-key latin-1',
        headers: { 'x-idempotency-key': 'cl\u00e9\u00a0\u00ff' },
        mayPass: true,
      },
      { name: 'x-idempotency-key control byte', headers: { 'x-idempotency-key': 'a\u0001b' } },
    );
  }
  return cases;
}

/** Kinds of query value no parameter takes, whatever its schema. */
const NEVER_VALID_QUERY = new Set(['malformed percent-encoding', 'control or bidi', 'huge']);

function queryCases(
  parameters: FuzzParameter[],
  random: SeededRandom,
): { name: string; query: string; field?: string; mustReject: boolean }[] {
  // An operation that declares query parameters validates its query string; one that declares none may ignore it.
  const validated = parameters.some((p) => p.in === 'query');
  const cases: { name: string; query: string; field?: string; mustReject: boolean }[] = [
    {
      name: 'unknown query parameter',
      query: 'unknownParameter=1',
      field: validated ? 'unknownParameter' : undefined,
      mustReject: validated,
    },
    {
      name: '__proto__ query',
      query: '__proto__[isAdmin]=1&constructor[prototype][isAdmin]=1',
      mustReject: validated,
    },
    {
      name: 'thousand parameters',
      query: Array.from({ length: 1_000 }, (_, i) => `p${i}=1`).join('&'),
      mustReject: validated,
    },
  ];
  for (const parameter of parameters.filter((p) => p.in === 'query')) {
    const { schema } = parameter;
    const name = encodeURIComponent(parameter.name);
    const valid = encodeURIComponent(String(schema.enum?.[0] ?? schema.example ?? 1));
    const field = parameter.name;
    cases.push(
      { name: `${field} repeated`, query: `${name}=${valid}&${name}=${valid}`, field, mustReject: true },
      {
        name: `${field} bracket array`,
        query: `${name}[]=${valid}&${name}[]=${valid}`,
        field,
        mustReject: true,
      },
      { name: `${field} bracket object`, query: `${name}[a]=${valid}`, field, mustReject: true },
      { name: `${field} without value`, query: name, mustReject: false },
    );
    const numeric = schema.types.includes('integer') || schema.types.includes('number');
    for (const { kind, members } of QUERY_VALUES) {
      const value = random.pick(members);
      const bounded =
        (numeric && schema.maximum !== undefined && kind === 'absurdly large') ||
        (numeric && (schema.minimum ?? -1) >= 0 && kind === 'negative') ||
        (schema.types.includes('integer') && (kind === 'not a number' || kind === 'empty'));
      cases.push({
        name: `${field} ${kind} ${value.length > 20 ? `${value.length} chars` : value}`,
        query: `${name}=${value}`,
        field,
        mustReject: NEVER_VALID_QUERY.has(kind) || bounded || (schema.enum !== undefined && kind !== 'empty'),
      });
    }
  }
  return cases;
}

function expandPath(operation: FuzzOperation, values: Record<string, string>): string {
  return operation.path.replace(/\{([^}]+)\}/g, (_, name: string) => values[name]);
}

/**
 * The whole campaign against one operation, deterministic for a seed: path parameters (real ids, then
 * absurd ones), query values, body fields, whole bodies, transports and headers. What must be refused is
 * derived from the schema; an operation without a body schema gets generic junk, which it may ignore.
 */
export function casesFor(operation: FuzzOperation, known: KnownValues, seed: number): FuzzRequest[] {
  const random = new SeededRandom(seed);
  const pathParameters = operation.parameters.filter((p) => p.in === 'path');
  const realPath = Object.fromEntries(
    pathParameters.map((p) => [p.name, encodeURIComponent(String(validValue(p.schema, p.name, known)))]),
  );
  const path = expandPath(operation, realPath);
  const hasBody = operation.body !== undefined;
  const base = hasBody ? validValue(operation.body!, '', known) : { unexpectedField: 1 };
  const bodyHeaders = hasBody || ['POST', 'PUT', 'PATCH'].includes(operation.method) ? JSON_TYPE : {};
  const cases: FuzzRequest[] = [];
  const add = (request: Omit<FuzzRequest, 'method'>) => cases.push({ method: operation.method, ...request });
  const validBody = hasBody ? encodeJson(base) : undefined;

  for (const parameter of pathParameters) {
    for (const id of ABSURD_IDS) {
      add({
        name: `path ${parameter.name}=${id.length > 40 ? `${id.length} chars` : id}`,
        target: expandPath(operation, { ...realPath, [parameter.name]: id }),
        headers: bodyHeaders,
        body: validBody,
        mustReject: true,
      });
    }
  }
  for (const { name, query, field, mustReject } of queryCases(operation.parameters, random)) {
    add({
      name: `query ${name}`,
      target: `${path}?${query}`,
      headers: bodyHeaders,
      body: validBody,
      field,
      mustReject,
    });
  }
  if (operation.body) {
    for (const { name, body, field, mustReject, wholeBody } of fieldCases(
      operation.body,
      false,
      base,
      [],
      random,
    )) {
      if (!field) continue;
      const request = { target: path, headers: JSON_TYPE, body: encodeJson(body), mustReject };
      add({ ...request, name: `body.${field}: ${name}`, field: wholeBody ? undefined : field });
    }
  }
  for (const { name, body, field, mayPass } of wholeBodyCases(base)) {
    add({
      name: `body ${name}`,
      target: path,
      headers: JSON_TYPE,
      body: encodeJson(body),
      field,
      mustReject: hasBody && !mayPass,
    });
  }
  for (const { mayPass, ...request } of transportCases(base)) {
    add({ ...request, name: `transport ${request.name}`, target: path, mustReject: hasBody && !mayPass });
  }
  for (const { mayPass, ...request } of headerCases(operation.method, operation.public)) {
    add({
      ...request,
      name: `header ${request.name}`,
      target: path,
      headers: { ...bodyHeaders, ...request.headers },
      body: validBody,
      mustReject: !mayPass,
    });
  }
  return cases;
}
