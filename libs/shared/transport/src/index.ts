export * from './context-client';
export * from './service-connections';
export * from './context-server';
export * from './context-transport.module';
export * from './wire-errors';
export * from './context-service-app';
export * from './service-app';
