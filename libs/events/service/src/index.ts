export * from './events.service';
export * from './events.module';
export * from './public-events-read-model';
