export * from './decisioning-config';
export * from './distributor-answer';
