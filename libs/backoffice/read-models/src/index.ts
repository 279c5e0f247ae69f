export * from './staff.read-model';
