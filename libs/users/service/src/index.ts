export * from './users.api';
export * from './users.service';
export * from './users.module';
