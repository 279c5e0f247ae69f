export * from './read-store.port';
export * from './idempotency-store.port';
export * from './sqlite/sqlite-read-store';
export * from './sqlite/sqlite-idempotency-store';
export * from './projection';
export * from './public-event-mapper';
export * from './mongo/mongo-read-store';
export * from './mongo/mongo-idempotency-store';
