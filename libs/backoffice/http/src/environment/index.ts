import type { Type } from '@nestjs/common';
import { EnvironmentActionsController } from './environment-actions.controller';
import { EnvironmentReadsController } from './environment-reads.controller';

export * from './environment.dto';
export * from './environment-actions.controller';
export * from './environment-reads.controller';

/** The controllers of `/operator/v1/{environment}/...`: reads and actions on one environment's data. */
export const ENVIRONMENT_CONTROLLERS: Type[] = [EnvironmentReadsController, EnvironmentActionsController];

/** The OpenAPI tags of the environment pages, for the operator document's tag list. */
export const ENVIRONMENT_TAGS = [
  {
    name: 'operator environment',
    description:
      "What staff read of one environment's data (sandbox or production, never both): search, users, cards, " +
      'transactions, the KYC review queue, webhook subscriptions and deliveries.',
  },
  {
    name: 'operator environment actions',
    description:
      'What support and compliance do in one environment, each with a reason and recorded in the audit ' +
      'trail whatever its outcome.',
  },
];
