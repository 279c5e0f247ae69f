import { domainEventReader, type DomainEvent, type Environment } from '@cip/shared/contracts';
import type { ProgramConfig } from './distributor.types';

// ---------------------------------------------------------------------------------------------------
// Events of a distributor stream (`dst-<uuid>`), in the control store shared by both environments
// ---------------------------------------------------------------------------------------------------

export type DistributorCreated = DomainEvent<
  'DistributorCreated',
  { distributorId: string; name: string; program: ProgramConfig; isDefault: boolean; createdAt: string }
>;

export type DistributorProgramConfigured = DomainEvent<
  'DistributorProgramConfigured',
  { distributorId: string; program: ProgramConfig; at: string }
>;

export type ApiKeyIssued = DomainEvent<
  'ApiKeyIssued',
  {
    distributorId: string;
    keyId: string;
    environment: Environment;
    keyHash: string;
    last4: string;
    label: string | null;
    at: string;
  }
>;

export type ApiKeyRevoked = DomainEvent<
  'ApiKeyRevoked',
  { distributorId: string; keyId: string; reason: 'rolled' | 'deleted'; at: string }
>;

export type DistributorEvent =
  DistributorCreated | DistributorProgramConfigured | ApiKeyIssued | ApiKeyRevoked;

/** How distributor streams are read (no upcaster yet: every event is still in its first shape). */
export const distributorEvents = domainEventReader<DistributorEvent>();
