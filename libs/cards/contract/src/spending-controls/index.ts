export * from './mcc-groups';
export * from './spending-windows';
export * from './spending-controls.types';
export * from './evaluate-controls';
