export * from './clock';
export * from './ids';
export * from './logger';
export * from './metrics';
export * from './sqlite-database';
export * from './config';
export * from './sqlite-checkpointer';
export * from './secrets';
