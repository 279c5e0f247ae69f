export * from './simulator.controller';
export * from './simulator.dto';
export * from './three-ds-simulation.controller';
export * from './three-ds-simulation.dto';
