export * from './cards.service';
export * from './cards.module';
export * from './cards.context';
export * from './fulfilment';
export * from './card-operations.service';
export * from './card-reveal.service';
export * from './card-network.service';
export * from './card-sandbox.service';
