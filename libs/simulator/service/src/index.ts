export * from './advice-queue';
export * from './card-network';
export * from './network/acquirer-messages';
export * from './sandbox-network';
export * from './simulator-store';
export * from './simulator.context';
export * from './simulator.module';
export * from './simulator.service';
