import { Inject, Injectable } from '@nestjs/common';
import { CONTROL_PLANE_API, type ControlPlaneApi, type DistributorSummary } from '@cip/distributors/contract';
import { type Caller, DomainError, type Environment, notFound } from '@cip/shared/contracts';
import { newId } from '@cip/shared/runtime';

/** A distributor of the environment, with the caller the pages call its contexts as. */
export interface Tenant {
  distributor: DistributorSummary;
  caller: Caller;
}

/** The answer, or null when the context says the id is not the caller's (`404 not_found`). */
export async function orNull<T>(read: Promise<T>): Promise<T | null> {
  try {
    return await read;
  } catch (error) {
    if (error instanceof DomainError && error.code === 'not_found') return null;
    throw error;
  }
}

/**
 * The distributors as the environment pages act for them. The contexts' APIs are tenant-scoped (a
 * `Caller` per distributor): an operator page reads each distributor's share, and finds the owner of an id
 * by asking each distributor in turn. That costs one read per distributor, which is acceptable because
 * distributors are few (a handful of programs, not thousands of tenants) and every read is by id or by
 * an indexed filter; it keeps the contexts' tenant isolation whole instead of opening a cross-tenant read
 * in each of them.
 */
@Injectable()
export class Tenants {
  constructor(@Inject(CONTROL_PLANE_API) private readonly controlPlane: ControlPlaneApi) {}

  /** Every distributor (or the one named: `404 not_found` when unknown), oldest first. */
  async of(environment: Environment, distributorId?: string): Promise<Tenant[]> {
    const all = await this.controlPlane.listDistributors();
    const chosen = distributorId ? all.filter((d) => d.distributorId === distributorId) : all;
    if (distributorId && chosen.length === 0) throw notFound('Distributor', distributorId);
    return chosen.map((distributor) => ({
      distributor,
      caller: {
        distributorId: distributor.distributorId,
        environment,
        requestId: newId('ops'),
        program: distributor.program,
      },
    }));
  }

  /** What `lookup` finds for the first distributor that owns it; `404 not_found` naming `what` otherwise. */
  async owner<T>(
    environment: Environment,
    what: string,
    id: string,
    lookup: (caller: Caller) => Promise<T | null>,
  ): Promise<{ tenant: Tenant; found: T }> {
    const found = await this.find(environment, lookup);
    if (!found) throw notFound(what, id);
    return found;
  }

  /** Like `owner`, null when no distributor owns it. */
  async find<T>(
    environment: Environment,
    lookup: (caller: Caller) => Promise<T | null>,
  ): Promise<{ tenant: Tenant; found: T } | null> {
    const tenants = await this.of(environment);
    const results = await Promise.all(tenants.map((tenant) => orNull(lookup(tenant.caller))));
    const index = results.findIndex((result) => result !== null);
    return index < 0 ? null : { tenant: tenants[index], found: results[index] as T };
  }
}
