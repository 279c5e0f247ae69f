export * from './distributed-infrastructure';
export * from './distributed-config';
export * from './relay.module';
