export * from './simulator.controller';
export * from './simulator.dto';
