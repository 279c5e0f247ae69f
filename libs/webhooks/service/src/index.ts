export * from './webhooks.service';
export * from './webhooks.module';
export * from './dispatch/webhook-dispatcher';
export * from './dispatch/delivery-engine';
export * from './signing/signing-keys';
export * from './signing/webhook-signature';
export * from './webhooks.context';
