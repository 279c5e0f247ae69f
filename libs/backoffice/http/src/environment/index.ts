import type { Type } from '@nestjs/common';
import { EnvironmentActionsController } from './environment-actions.controller';
import { EnvironmentReadsController } from './environment-reads.controller';

export * from './environment.dto';
export * from './environment-actions.controller';
export * from './environment-reads.controller';

/** The controllers of `/operator/v1/environments/{environment}/...`: reads and actions on one environment's data. */
export const ENVIRONMENT_CONTROLLERS: Type[] = [EnvironmentReadsController, EnvironmentActionsController];

/** The OpenAPI tags of the environment pages with what they group (the shape of `OPERATOR_TAGS`). */
export const ENVIRONMENT_TAGS: Record<string, string> = {
  'Environment pages':
    "What staff read of one environment's data (sandbox or production, never both): search, users, cards, " +
    'timelines, transactions, the KYC review queue, webhook subscriptions and deliveries.',
  'Environment actions':
    'What support and compliance do in one environment, each with a reason and recorded in the audit ' +
    'trail whatever its outcome.',
};
