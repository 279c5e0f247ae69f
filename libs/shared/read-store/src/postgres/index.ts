export * from './postgres-pool';
export * from './postgres-read-store';
export * from './postgres-idempotency-store';
export * from './postgres-leases';
