export * from './staff';
export * from './audit';
export * from './timeline';
export * from './health';
export * from './audit-log';
export * from './environment-pages';
