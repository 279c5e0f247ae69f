export * from './distributed-infrastructure';
