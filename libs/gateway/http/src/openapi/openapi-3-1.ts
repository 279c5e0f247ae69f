import type { OpenAPIObject } from '@nestjs/swagger';

/** A schema object of the document, read loosely: the 3.0 shape @nestjs/swagger writes, or 3.1 once converted. */
export type Schema = Record<string, unknown>;

const isObject = (value: unknown): value is Schema =>
  typeof value === 'object' && value !== null && !Array.isArray(value);

/**
 * @nestjs/swagger writes OpenAPI 3.0 (`nullable`, `example` in schemas); 3.1 schemas are JSON Schema
 * 2020-12, where a nullable field is a union with `null`. Written here rather than taken from a converter
 * package because only these two keywords appear in what the decorators produce. A nullable reference
 * becomes `oneOf: [{$ref}, {type: 'null'}]`, so a nullable address stays an address (3.0 generators turned
 * `nullable` beside `allOf` into a bare object).
 */
export function toOpenApi31(document: OpenAPIObject): void {
  document.openapi = '3.1.0';
  const schemas = document.components?.schemas ?? {};
  for (const schema of Object.values(schemas)) convertSchema(schema as Schema);
  for (const pathItem of Object.values(document.paths)) {
    for (const operation of Object.values(pathItem)) {
      if (!isObject(operation)) continue;
      for (const parameter of (operation.parameters as Schema[] | undefined) ?? []) {
        if (isObject(parameter.schema)) convertSchema(parameter.schema);
      }
      const bodies = [operation.requestBody, ...Object.values((operation.responses as Schema) ?? {})];
      for (const body of bodies) {
        if (!isObject(body) || !isObject(body.content)) continue;
        for (const media of Object.values(body.content)) {
          if (isObject(media) && isObject(media.schema)) convertSchema(media.schema);
        }
      }
    }
  }
}

function convertSchema(schema: Schema): void {
  if ('example' in schema) {
    schema.examples = [schema.example];
    delete schema.example;
  }
  if (schema.nullable === true) makeNullable(schema);
  delete schema.nullable;
  for (const key of ['items', 'additionalProperties', 'not']) {
    if (isObject(schema[key])) convertSchema(schema[key] as Schema);
  }
  for (const key of ['allOf', 'oneOf', 'anyOf']) {
    for (const member of (schema[key] as Schema[] | undefined) ?? []) convertSchema(member);
  }
  for (const property of Object.values((schema.properties as Record<string, Schema> | undefined) ?? {})) {
    convertSchema(property);
  }
}

function makeNullable(schema: Schema): void {
  const allOf = schema.allOf as Schema[] | undefined;
  const target =
    typeof schema.$ref === 'string' ? { $ref: schema.$ref } : allOf?.length === 1 ? allOf[0] : null;
  if (target) {
    delete schema.$ref;
    delete schema.allOf;
    delete schema.type;
    schema.oneOf = [target, { type: 'null' }];
    return;
  }
  // TypeScript reflects `string | null` as Object: without an explicit type the field would read as an object.
  if (schema.type === 'object' && !schema.properties && !schema.additionalProperties) {
    throw new Error(
      `A nullable field documented as a bare object (${JSON.stringify(schema)}): give its type, ` +
        'e.g. @ApiProperty({ type: String, nullable: true })',
    );
  }
  if (typeof schema.type === 'string') schema.type = [schema.type, 'null'];
  if (Array.isArray(schema.enum) && !schema.enum.includes(null)) schema.enum = [...schema.enum, null];
}
