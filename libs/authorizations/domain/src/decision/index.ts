export * from './authorization-program';
export * from './authorization-decision.policy';
