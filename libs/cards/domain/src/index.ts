export * from './spending-controls';
