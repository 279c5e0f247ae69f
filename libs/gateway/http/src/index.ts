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
export * from './common/sandbox-only.guard';
export { SystemController } from '@cip/shared/infrastructure';
export * from './common/shipping-address.dto';
export * from './common/api-page.decorator';
export * from './common/hosted-page';
// What the operator app (libs/backoffice/http) shares with /v1: request ids, the access log, body reading,
// refusals before routing, and the OpenAPI 3.1 conversion.
export { installRequestId } from './pipeline/request-id.hook';
export { installAccessLog } from './pipeline/access-log.hook';
export { installRequestBodies } from './pipeline/request-bodies';
export { answerClientError, answerRouterError } from './pipeline/transport-errors';
export { toOpenApi31 } from './openapi/openapi-3-1';
export { publicSchemaName } from './openapi/schema-names';
export { renameSchemas } from './openapi/openapi-document';
export { errorResponse } from './openapi/pipeline-responses';
