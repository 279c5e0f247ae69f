export * from './events.service';
export * from './events.module';
export * from './events.context';
export * from './public-events-read-model';
