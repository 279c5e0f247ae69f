export * from './event-record';
export * from './public-event-recorder';
