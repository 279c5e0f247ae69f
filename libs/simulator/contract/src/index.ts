export * from './clearing-file-sink';
export * from './simulator.api';
