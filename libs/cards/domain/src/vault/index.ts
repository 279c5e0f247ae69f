export * from './luhn';
export * from './pan';
export * from './card-expiry';
export * from './card-verification';
export * from './vault-ref';
