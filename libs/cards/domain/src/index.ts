export * from './spending-controls';
export * from './vault';
export * from './card.types';
export * from './card.events';
export * from './card.commands';
export * from './card.decider';
export * from './card-shipping';
export * from './card.holds';
