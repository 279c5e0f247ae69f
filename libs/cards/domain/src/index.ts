export * from './spending-controls';
export * from './vault';
