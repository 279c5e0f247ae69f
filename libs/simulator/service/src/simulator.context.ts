import { ContextDefinition } from '@cip/shared/infrastructure';
import { SIMULATOR_CONTROLLERS } from '@cip/simulator/http';
import { SIMULATOR_CONTRACTS, SimulatorModule } from './simulator.module';

/** The card network and acquirers of the sandbox, as the platform registry lists it. No events of its own. */
export const simulatorContext: ContextDefinition = {
  name: 'simulator',
  contracts: SIMULATOR_CONTRACTS,
  module: SimulatorModule,
  readModels: [],
  publicEvents: [],
  sagas: [],
  controllers: SIMULATOR_CONTROLLERS,
};
