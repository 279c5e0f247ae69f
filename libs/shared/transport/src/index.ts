export * from './context-client';
export * from './context-server';
export * from './context-transport.module';
export * from './wire-errors';
export * from './system.controller';
export * from './context-service-app';
