export * from './distributed-infrastructure';
export * from './distributed-config';
