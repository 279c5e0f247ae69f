export * from './mcc-groups';
export * from './spending-windows';
export * from './spending-controls';
export * from './evaluate-controls';
