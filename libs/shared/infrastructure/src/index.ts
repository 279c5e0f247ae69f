export * from './infrastructure';
export * from './embedded-infrastructure';
export * from './consumers';
export * from './projections/apply-projection';
export * from './infrastructure.module';
export * from './projections/verify-projections';
export * from './contexts';
export * from './system.controller';
