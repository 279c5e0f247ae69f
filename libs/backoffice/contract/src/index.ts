export * from './staff';
export * from './audit';
export * from './timeline';
export * from './health';
