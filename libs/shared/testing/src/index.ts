export * from './contract-targets';
export * from './decider-spec';
export * from './wait-for';
export * from './webhook-receiver';
export * from './kill-mid-run';
export * from './fresh-database';
