export * from './staff.events';
export * from './staff.decider';
export * from './unknown-email.decider';
