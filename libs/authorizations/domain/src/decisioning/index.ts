export * from './decisioning-config';
export * from './distributor-answer';
export * from './partial-approval';
