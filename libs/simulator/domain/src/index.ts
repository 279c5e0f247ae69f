export * from './clearing-file';
export * from './currencies';
export * from './pin-block';
export * from './references';
export * from './stand-in';
