import { TokenizationSimulationController } from './tokenization-simulation.controller';
import { TokenizationController } from './tokenization.controller';

export * from './tokenization.controller';
export * from './tokenization-simulation.controller';
export * from './tokenization.dto';

/** The tokenization context's HTTP surface: the distributor API and the sandbox token service. */
export const TOKENIZATION_CONTROLLERS = [TokenizationController, TokenizationSimulationController];
