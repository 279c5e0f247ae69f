export * from './authorizations.service';
export * from './authorizations.module';
export * from './authorizations.context';
export * from './authorization-expiry.scheduler';
export * from './authorization-program.defaults';
export * from './network/issuer-link';
export * from './network/iso-issuer-messages';
export * from './network/response-codes';
