export * from './read-store.port';
export * from './sqlite/sqlite-read-store';
