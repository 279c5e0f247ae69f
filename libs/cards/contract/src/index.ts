export * from './card.types';
export * from './card-shipping';
export * from './card-view';
export * from './cards.api';
export * from './cards.integration-events';
export * from './card-operations.api';
export * from './card-reveal.api';
export * from './card-sandbox.api';
