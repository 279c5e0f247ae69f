export * from './webhook-subscription-view';
export * from './webhook-subscriptions.projection';
export * from './webhook-subscription.public-events';
export * from './webhook-delivery';
