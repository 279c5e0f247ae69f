export * from './webhook.types';
export * from './webhook-subscription-view';
export * from './webhook-delivery';
export * from './webhooks.api';
