export * from './postgres-infrastructure';
export * from './postgres-config';
