export * from './events.service';
export * from './events.module';
