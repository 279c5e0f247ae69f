export * from './context-definition';
export * from './contexts.module';
export * from './saga';
