export * from './staff.events';
export * from './staff.decider';
