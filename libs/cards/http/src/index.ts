import { SimulateCardShipmentController } from './card-simulation.controller';
import { CardRevealController } from './card-reveal.controller';
import { CardsController } from './cards.controller';
import { HostedCardRevealController } from './reveal-page/hosted-card-reveal.controller';

export * from './cards.controller';
export * from './card-simulation.controller';
export * from './cards.dto';
export * from './create-card.dto';

export * from './card-reveal.controller';

/**
 * The cards context's HTTP surface: the distributor API (/v1/cards, the reveal link included), the
 * single-use card reveal page its links lead to, and the sandbox's shipping simulation.
 */
export const CARDS_CONTROLLERS = [
  CardsController,
  CardRevealController,
  HostedCardRevealController,
  SimulateCardShipmentController,
];
