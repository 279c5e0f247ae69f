export * from './currencies';
export * from './references';
export * from './stand-in';
