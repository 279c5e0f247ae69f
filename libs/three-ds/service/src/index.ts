export * from './three-ds.service';
export * from './three-ds.module';
export * from './three-ds.context';
export * from './card-authentication-expiry.scheduler';
export * from './directory-server-client';
export * from './sagas/card-authentication-results.saga';
