export * from './chain.ports';
