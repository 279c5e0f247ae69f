import { SimulateCardShipmentController } from './card-simulation.controller';
import { CardsController } from './cards.controller';

export * from './cards.controller';
export * from './card-simulation.controller';
export * from './cards.dto';
export * from './create-card.dto';

/** The cards context's HTTP surface (distributor API, and the sandbox's shipping simulation). */
export const CARDS_CONTROLLERS = [CardsController, SimulateCardShipmentController];
