export * from './read-store.port';
export * from './idempotency-store.port';
export * from './sqlite/sqlite-read-store';
export * from './sqlite/sqlite-idempotency-store';
export * from './projection';
export * from './public-event-mapper';
export * from './tenant-read-store';
