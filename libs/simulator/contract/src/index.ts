export * from './clearing-file';
export * from './clearing-file-sink';
export * from './simulator.api';
export * from './three-ds-simulation.api';
