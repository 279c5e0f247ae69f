import { CardRevealController } from './card-reveal.controller';
import { CardsController } from './cards.controller';
import { HostedCardRevealController } from './reveal-page/hosted-card-reveal.controller';

export * from './cards.controller';
export * from './cards.dto';
export * from './card-reveal.controller';

/**
 * The cards context's HTTP surface: the distributor API (/v1/cards, the reveal link included) and the
 * single-use card reveal page its links lead to.
 */
export const CARDS_CONTROLLERS = [CardsController, CardRevealController, HostedCardRevealController];
