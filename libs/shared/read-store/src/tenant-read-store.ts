import {
  DomainError,
  Environment,
  FindPage,
  FindResult,
  isOwnedBy,
  notFound,
  Tenant,
} from '@cip/shared/contracts';
import { FilterValue, FindQuery, ReadDocument, ReadStore, sortKeyOf } from './read-store.port';

/** A document of a read model that belongs to a distributor (every tenant-facing read model's documents). */
export interface TenantDocument extends ReadDocument {
  distributorId: string;
}

/**
 * A read store as one tenant sees it: the environment picks the store, and every read is filtered by the
 * distributor, so another tenant's documents cannot be reached by forgetting a check. Documents of another
 * distributor are indistinguishable from missing ones (a plain 404 at the API, API-DECISIONS.md).
 */
export interface TenantReadStore {
  /**
   * A page of the tenant's documents matching the equality filters (a `distributorId` filter is ignored).
   * A cursor must name a live document of the tenant in this collection (it need not match the filters);
   * any other id is `400 validation_error` naming the cursor field, another tenant's included.
   */
  find<T extends TenantDocument>(
    collection: string,
    filter: Record<string, FilterValue | undefined>,
    page: FindPage,
  ): Promise<FindResult<T>>;
  /** The tenant's document, or null when it does not exist or belongs to another tenant. */
  get<T extends TenantDocument>(collection: string, id: string): Promise<T | null>;
  /** The tenant's document; `404 not_found` naming `what` when it does not exist or is another tenant's. */
  getOwned<T extends TenantDocument>(collection: string, id: string, what: string): Promise<T>;
}

/** The one way a context reads its read models for a caller (see {@link TenantReadStore}). */
export function forTenant(
  stores: ReadStore | ((environment: Environment) => ReadStore),
  tenant: Tenant,
): TenantReadStore {
  const store = typeof stores === 'function' ? stores(tenant.environment) : stores;
  const get = async <T extends TenantDocument>(collection: string, id: string): Promise<T | null> => {
    const doc = await store.get<T>(collection, id);
    return isOwnedBy(tenant, doc) ? doc : null;
  };
  return {
    async find<T extends TenantDocument>(
      collection: string,
      filter: Record<string, FilterValue | undefined>,
      { cursor, ...page }: FindPage,
    ): Promise<FindResult<T>> {
      const equality: Record<string, FilterValue> = {};
      for (const [field, value] of Object.entries(filter)) if (value !== undefined) equality[field] = value;
      equality.distributorId = tenant.distributorId;
      const query: FindQuery = { ...page, filter: equality };
      if (cursor) {
        const [field, id] =
          'startingAfter' in cursor
            ? (['startingAfter', cursor.startingAfter] as const)
            : (['endingBefore', cursor.endingBefore] as const);
        const anchor = await store.getVersioned<T>(collection, id);
        const key = anchor && isOwnedBy(tenant, anchor.doc) ? sortKeyOf(id, anchor, page.sort.field) : null;
        if (!key) {
          const message = `No such item for ${field}: ${id.slice(0, 80)}`;
          throw new DomainError('validation_error', message, [{ field, message }]);
        }
        query.cursor = { side: field === 'startingAfter' ? 'after' : 'before', key };
      }
      return store.find<T>(collection, query);
    },
    get,
    async getOwned<T extends TenantDocument>(collection: string, id: string, what: string): Promise<T> {
      const doc = await get<T>(collection, id);
      if (!doc) throw notFound(what, id);
      return doc;
    },
  };
}
