export * from './webhook-subscription.events';
export * from './webhook-subscription.commands';
export * from './webhook-subscription.decider';
export * from './retry-schedule';
export * from './delivery-outcome.policy';
