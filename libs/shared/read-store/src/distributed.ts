// Adapters of the distributed runtime, on their own entry point so that the embedded runtime never loads mongoose
// or pg.
export * from './mongo/mongo-read-store';
export * from './mongo/mongo-idempotency-store';
export * from './mongo/mongo-leases';
export * from './postgres';
