export * from './distributor-directory';
export * from './distributors.service';
export * from './distributors.module';
export * from './control-plane.service';
