export * from './money';
export * from './wallet.events';
export * from './wallet.commands';
export * from './wallet.decider';
export * from './address-allocator.decider';
export * from './recent-ids';
