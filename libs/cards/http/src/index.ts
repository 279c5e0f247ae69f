import { CardsController } from './cards.controller';

export * from './cards.controller';
export * from './cards.dto';

/** The cards context's HTTP surface (distributor API). */
export const CARDS_CONTROLLERS = [CardsController];
