import { DomainError } from './api-errors';

/** The two fully isolated environments (spec part 1, fact 1). */
export const ENVIRONMENTS = ['sandbox', 'production'] as const;
export type Environment = (typeof ENVIRONMENTS)[number];

/** The caller of a /v1 request, resolved from its API key. Every command and query is scoped by it. */
export interface Tenant {
  distributorId: string;
  environment: Environment;
}

/**
 * The entity when it belongs to the tenant; otherwise `404 not_found`, exactly as if it did not exist (for
 * entities folded from their stream; read models go through `forTenant`).
 */
export function ownedBy<T extends { distributorId: string }>(
  tenant: Tenant,
  entity: T | null | undefined,
  what: string,
  id: string,
): T {
  if (!isOwnedBy(tenant, entity)) throw new DomainError('not_found', `${what} ${id} was not found`);
  return entity;
}

/** Whether the entity exists and belongs to the tenant (where a missing one is not an error). */
export const isOwnedBy = <T extends { distributorId: string }>(
  tenant: Tenant,
  entity: T | null | undefined,
): entity is T => !!entity && entity.distributorId === tenant.distributorId;
