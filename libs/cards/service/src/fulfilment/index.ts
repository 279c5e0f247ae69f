export * from './fulfilment-provider.port';
export * from './sandbox-fulfilment-provider';
