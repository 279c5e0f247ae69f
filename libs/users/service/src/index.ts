export * from './users.api';
export * from './users.service';
export * from './users.module';
export * from './transport/users.transport';
