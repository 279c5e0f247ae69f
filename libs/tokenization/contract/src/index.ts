export * from './token.types';
export * from './token-view';
export * from './tokenization.api';
export * from './tokenization.integration-events';
