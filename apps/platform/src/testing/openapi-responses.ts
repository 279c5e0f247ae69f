import Ajv2020, { ValidateFunction } from 'ajv/dist/2020';
import addFormats from 'ajv-formats';
import request from 'supertest';
import { resolveRef } from './openapi-ref';

type Json = Record<string, unknown>;
interface Operation {
  template: string;
  pattern: RegExp;
  method: string;
  responses: Record<string, Json>;
}

const METHODS = ['get', 'put', 'post', 'delete', 'patch'];

const isObject = (value: unknown): value is Json =>
  typeof value === 'object' && value !== null && !Array.isArray(value);

/**
 * The document as the tests read it: every object schema that lists its properties refuses others, so a field
 * the code sends and the document does not describe is caught (the served document stays open to additions).
 */
function closed(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(closed);
  if (!isObject(value)) return value;
  const copy: Json = Object.fromEntries(Object.entries(value).map(([key, child]) => [key, closed(child)]));
  if (isObject(copy.properties) && copy.additionalProperties === undefined) copy.additionalProperties = false;
  return copy;
}

const pointer = (...parts: string[]) =>
  parts.map((part) => part.replace(/~/g, '~0').replace(/\//g, '~1')).join('/');

/** The path as the router matches it: percent-encoding decoded, a trailing slash ignored. */
function routedPath(url: string): string {
  const segments = new URL(url, 'http://platform').pathname.split('/').map((segment) => {
    try {
      return decodeURIComponent(segment);
    } catch {
      return segment;
    }
  });
  const path = segments.join('/');
  return path.length > 1 && path.endsWith('/') ? path.slice(0, -1) : path;
}

/**
 * Checks every response of the e2e suite against the served OpenAPI document: the operation is found by
 * method and path template, its status must be documented, its JSON body must match the status's schema and
 * its required headers must be there. Responses of paths the document does not describe (hosted pages,
 * health, an unknown /v1 route) are checked only for the error shape when they are /v1 errors.
 */
export class OpenApiResponses {
  private readonly ajv = new Ajv2020({ strict: false, allErrors: true });
  private readonly operations: Operation[] = [];
  private readonly validators = new Map<string, ValidateFunction>();
  /** The error body of API-DECISIONS.md, whatever the code: what a /v1 route the document lacks answers. */
  private readonly anyError: ValidateFunction;

  /** Served beside the API, not by it. */
  private readonly outsideTheDocument: RegExp;

  /** `prefix`: the API's paths (`/v1/`, or `/operator/v1/` for the operator API's own document). */
  constructor(
    private readonly document: Json,
    private readonly prefix = '/v1/',
  ) {
    this.outsideTheDocument = new RegExp(`^${prefix.replace(/\//g, '\\/')}(openapi\\.json|docs)(\\/|$)`);
    addFormats(this.ajv);
    this.ajv.addSchema(closed(document) as Json, 'openapi');
    this.anyError = this.ajv.compile({
      type: 'object',
      required: ['error', 'requestId'],
      additionalProperties: false,
      properties: {
        error: {
          type: 'object',
          required: ['code', 'message'],
          additionalProperties: false,
          properties: {
            code: { type: 'string' },
            message: { type: 'string' },
            details: { type: 'array', items: { $ref: 'openapi#/components/schemas/FieldError' } },
          },
        },
        requestId: { type: 'string' },
      },
    });
    for (const [template, item] of Object.entries(document.paths as Record<string, Json>)) {
      const source = template.replace(/[.*+?^$()|[\]\\]/g, '\\$&').replace(/\{[^}]+\}/g, '[^/]+');
      for (const method of METHODS) {
        if (!isObject(item[method])) continue;
        const responses = (item[method] as Json).responses as Record<string, Json>;
        this.operations.push({ template, pattern: new RegExp(`^${source}$`), method, responses });
      }
    }
    // A literal segment wins over a parameter (`/public-key` before `/{subscriptionId}`).
    this.operations.sort(
      (a, b) => (a.template.match(/\{/g)?.length ?? 0) - (b.template.match(/\{/g)?.length ?? 0),
    );
  }

  static async of(baseUrl: string, prefix = '/v1/'): Promise<OpenApiResponses> {
    const served = await request(baseUrl).get(`${prefix}openapi.json`);
    if (served.status !== 200) throw new Error(`GET ${prefix}openapi.json answered ${served.status}`);
    return new OpenApiResponses(served.body, prefix);
  }

  /** Throws, saying what differs, when a response is not what the document promises. */
  check(method: string, url: string, response: request.Response): void {
    const path = routedPath(url);
    const operation = this.operations.find((o) => o.method === method.toLowerCase() && o.pattern.test(path));
    const where = `${method.toUpperCase()} ${path} answered ${response.status}`;
    if (!operation) {
      if (!path.startsWith(this.prefix) || this.outsideTheDocument.test(path)) return;
      if (response.status < 400) throw new Error(`${where}, but the OpenAPI document has no such operation`);
      return this.validate(this.anyError, response.body, where);
    }
    const status = String(response.status);
    const documented = operation.responses[status];
    if (!documented) {
      throw new Error(
        `${where}, which the OpenAPI document does not list for ${method.toUpperCase()} ${operation.template} ` +
          `(documented: ${Object.keys(operation.responses).join(', ')}); body: ${JSON.stringify(response.body)}`,
      );
    }
    for (const [name, header] of Object.entries((documented.headers as Record<string, Json>) ?? {})) {
      const resolved = resolveRef(this.document, header);
      if (resolved.required && response.headers[name] === undefined) {
        throw new Error(`${where} without its documented ${name} header`);
      }
    }
    const content = documented.content as Record<string, Json> | undefined;
    if (!content) {
      if (response.text)
        throw new Error(`${where} with a body the document does not describe: ${response.text}`);
      return;
    }
    // The media type the response says it is, among those documented (JSON for nearly every operation).
    const received = String(response.headers['content-type'] ?? '')
      .split(';')[0]
      .trim();
    const mediaType = received in content ? received : 'application/json';
    if (!(mediaType in content))
      throw new Error(`${where} as ${received || 'no content type'}, which the document does not list`);
    const key = pointer(
      'paths',
      operation.template,
      operation.method,
      'responses',
      status,
      'content',
      mediaType,
      'schema',
    );
    this.validate(this.validatorOf(key), /json/.test(mediaType) ? response.body : response.text, where);
  }

  private validatorOf(key: string): ValidateFunction {
    let validate = this.validators.get(key);
    if (!validate) {
      validate = this.ajv.compile({ $ref: `openapi#/${key}` });
      this.validators.set(key, validate);
    }
    return validate;
  }

  private validate(validate: ValidateFunction, body: unknown, where: string): void {
    if (validate(body)) return;
    const errors = (validate.errors ?? []).map(
      (e) => `${e.instancePath || '(body)'} ${e.message} ${JSON.stringify(e.params)}`,
    );
    throw new Error(
      `${where} with a body that does not match the OpenAPI document:\n  ${errors.join('\n  ')}\n` +
        `body: ${JSON.stringify(body)}`,
    );
  }

  /**
   * A supertest agent on the platform whose every request checks its response against the document when it
   * is awaited: the test fails with what differs.
   */
  agent(baseUrl: string): ReturnType<typeof request> {
    const agent = request(baseUrl);
    return new Proxy(agent, {
      get: (target, property, receiver) => {
        const value = Reflect.get(target, property, receiver);
        if (typeof property !== 'string' || !METHODS.includes(property) || typeof value !== 'function')
          return value;
        return (url: string, ...rest: unknown[]) =>
          (value as (...args: unknown[]) => request.Test)
            .call(target, url, ...rest)
            .expect((response: request.Response) => this.check(property, url, response));
      },
    });
  }
}
