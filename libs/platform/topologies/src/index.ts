export * from './platform-process';
export * from './split-topology';
