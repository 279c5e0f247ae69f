export * from './card-vault-store.port';
export * from './sqlite-card-vault-store';
export * from './mongo-card-vault-store';
export * from './postgres-card-vault-store';
export * from './key-encryption-keys';
export * from './card-vault';
export * from './open-card-vault';
