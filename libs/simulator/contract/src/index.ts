export * from './clearing-file';
export * from './clearing-file-sink';
export * from './simulator.api';
