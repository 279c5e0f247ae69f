export * from './cards.service';
export * from './cards.module';
export * from './cards.context';
export * from './card-reveal.service';
