export * from './infrastructure';
export * from './embedded-infrastructure';
