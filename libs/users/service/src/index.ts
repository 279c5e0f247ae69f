export * from './users.service';
export * from './users.module';
export * from './users.context';
