export * from './access/staff-access';
export * from './access/audited';
export * from './environment';
