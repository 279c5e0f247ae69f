export * from './access/staff-access';
export * from './access/audited';
