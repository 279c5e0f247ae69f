export * from './currencies';
export * from './authorization-pricing';
