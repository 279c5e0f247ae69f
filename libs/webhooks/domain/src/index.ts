export * from './webhook-subscription.events';
export * from './webhook-subscription.commands';
export * from './webhook-subscription.decider';
export * from './retry-schedule';
