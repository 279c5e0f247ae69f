import type { Type } from '@nestjs/common';

/** The controllers of `/operator/v1/{environment}/...`: reads and actions on one environment's data. */
export const ENVIRONMENT_CONTROLLERS: Type[] = [];
