export * from './personal-data-key-store.port';
export * from './personal-data-vault';
export * from './personal-data-event-store';
export * from './sqlite-personal-data-key-store';
