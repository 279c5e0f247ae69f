/**
 * The operations of a served OpenAPI document (3.0 or 3.1), with `$ref`s resolved and schemas reduced to
 * what a fuzzer needs, so the fuzz test covers every operation the API documents, new ones included.
 */

import { resolveRef } from '../openapi-ref';

/** A JSON schema as far as the fuzzer reads it (3.0 `nullable` and 3.1 type arrays both folded in). */
export interface FuzzSchema {
  types: string[];
  nullable: boolean;
  properties: Record<string, FuzzSchema>;
  required: string[];
  items?: FuzzSchema;
  enum?: unknown[];
  example?: unknown;
  format?: string;
  minimum?: number;
  maximum?: number;
}

export interface FuzzParameter {
  name: string;
  in: 'path' | 'query' | 'header' | 'cookie';
  required: boolean;
  schema: FuzzSchema;
}

export interface FuzzOperation {
  method: string;
  /** The templated path, e.g. `/v1/users/{userId}`. */
  path: string;
  /** `operationId`, else `METHOD path`: how failures name the operation. */
  label: string;
  parameters: FuzzParameter[];
  /** The JSON request body schema; absent when the operation declares none (generic junk is sent). */
  body?: FuzzSchema;
  /** Served without an API key (`security: []`): a bad key changes nothing to the answer. */
  public: boolean;
}

type Json = Record<string, unknown>;
const METHODS = ['get', 'put', 'post', 'delete', 'patch'];
/** Past this depth a self-referencing schema is cut off (a tree of a tree of ... is not worth walking). */
const MAX_SCHEMA_DEPTH = 8;

function toFuzzSchema(document: Json, node: unknown, depth = 0): FuzzSchema {
  const schema = resolveRef(document, node);
  const result: FuzzSchema = { types: [], nullable: schema.nullable === true, properties: {}, required: [] };
  if (depth > MAX_SCHEMA_DEPTH) return result;
  // allOf merges; oneOf/anyOf take their first branch that says something (enough to build a valid base).
  const merged = [
    ...((schema.allOf as unknown[]) ?? []),
    ...((schema.oneOf as unknown[]) ?? []).slice(0, 1),
    ...((schema.anyOf as unknown[]) ?? []).slice(0, 1),
  ];
  for (const part of merged) {
    const sub = toFuzzSchema(document, part, depth + 1);
    result.types.push(...sub.types);
    result.nullable ||= sub.nullable;
    Object.assign(result.properties, sub.properties);
    result.required.push(...sub.required);
    result.items ??= sub.items;
    result.enum ??= sub.enum;
    result.example ??= sub.example;
    result.format ??= sub.format;
  }
  const declared = Array.isArray(schema.type) ? schema.type : schema.type ? [schema.type] : [];
  for (const type of declared as string[]) {
    if (type === 'null') result.nullable = true;
    else result.types.push(type);
  }
  if (schema.properties) {
    for (const [name, property] of Object.entries(schema.properties as Json)) {
      result.properties[name] = toFuzzSchema(document, property, depth + 1);
    }
    if (!result.types.length) result.types.push('object');
  }
  if (schema.items) result.items = toFuzzSchema(document, schema.items, depth + 1);
  if (Array.isArray(schema.required)) result.required.push(...(schema.required as string[]));
  if (Array.isArray(schema.enum)) result.enum = (schema.enum as unknown[]).filter((v) => v !== null);
  if ('const' in schema) result.enum = [schema.const];
  const examples = schema.examples as unknown;
  result.example ??= schema.example ?? (Array.isArray(examples) ? examples[0] : undefined);
  if (typeof schema.format === 'string') result.format = schema.format;
  if (typeof schema.minimum === 'number') result.minimum = schema.minimum;
  if (typeof schema.maximum === 'number') result.maximum = schema.maximum;
  result.types = [...new Set(result.types)];
  return result;
}

/** Every operation of the document, in document order. */
export function operationsOf(document: Json): FuzzOperation[] {
  const operations: FuzzOperation[] = [];
  for (const [path, item] of Object.entries((document.paths ?? {}) as Json)) {
    const pathItem = resolveRef(document, item);
    const shared = (pathItem.parameters as unknown[]) ?? [];
    for (const method of METHODS) {
      const operation = pathItem[method] as Json | undefined;
      if (!operation) continue;
      const byKey = new Map<string, FuzzParameter>();
      for (const raw of [...shared, ...((operation.parameters as unknown[]) ?? [])]) {
        const parameter = resolveRef(document, raw);
        const name = String(parameter.name);
        const location = parameter.in as FuzzParameter['in'];
        byKey.set(`${location}:${name}`, {
          name,
          in: location,
          required: parameter.required === true || location === 'path',
          schema: toFuzzSchema(document, parameter.schema),
        });
      }
      const content = (resolveRef(document, operation.requestBody).content ?? {}) as Json;
      const jsonType = Object.keys(content).find((type) => /json/i.test(type));
      operations.push({
        method: method.toUpperCase(),
        path,
        label: typeof operation.operationId === 'string' ? operation.operationId : `${method} ${path}`,
        parameters: [...byKey.values()],
        body: jsonType ? toFuzzSchema(document, (content[jsonType] as Json).schema) : undefined,
        public: Array.isArray(operation.security) && operation.security.length === 0,
      });
    }
  }
  return operations;
}
