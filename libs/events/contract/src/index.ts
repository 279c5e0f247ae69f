export * from './events.api';
