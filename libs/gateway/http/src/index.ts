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
