export * from './event-store.port';
export * from './message-bus.port';
export * from './sqlite/sqlite-event-store';
export * from './sqlite/embedded-message-bus';
export * from './command-handler';
export * from './recent-stream-states';
export * from './personal-data';
export * from './live-log-fold';
