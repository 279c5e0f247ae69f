export * from './contract-targets';
