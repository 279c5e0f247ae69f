export * from './card-view';
export * from './cards.projection';
export * from './card.public-events';
