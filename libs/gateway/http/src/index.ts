export * from './create-http-app';
export * from './gateway-http.module';
export * from './pipeline/error-responses';
export * from './pipeline/gateway-pipeline';
export * from './pipeline/validation';
// What every context's controllers share: the caller, lists, error documentation, ids, sandbox-only routes.
export * from './common/api-errors.decorator';
export * from './common/caller.decorator';
export * from './common/pagination';
export * from './common/nested-object.decorator';
export * from './common/person-name.decorator';
export * from './common/resource-id.pipe';
export * from './common/safe-text.decorator';
export * from './common/money-amount.decorator';
export * from './common/sandbox-only.guard';
export { SystemController } from '@cip/shared/infrastructure';
export * from './common/shipping-address.dto';
export * from './common/api-page.decorator';
export * from './common/hosted-page';
// What the operator app (libs/backoffice/http) shares with /v1: the Nest app on Fastify, request ids, the access log,
// body reading, the docs page and the OpenAPI 3.1 conversion.
export { installRequestId } from './pipeline/request-id.hook';
export { installAccessLog } from './pipeline/access-log.hook';
export { installRequestBodies, numberLiteral } from './pipeline/request-bodies';
export { createNestFastifyApp, type NestFastifyAppOptions } from './nest-fastify-app';
export { serveSwaggerDocs, type SwaggerDocsOptions } from './docs-page';
export { toOpenApi31 } from './openapi/openapi-3-1';
export { publicSchemaName } from './openapi/schema-names';
export { renameSchemas } from './openapi/openapi-document';
export { errorResponse } from './openapi/pipeline-responses';
