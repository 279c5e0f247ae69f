export * from './elected-role';
