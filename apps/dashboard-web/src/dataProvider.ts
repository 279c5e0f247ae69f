import { HttpError, type DataProvider, type RaRecord } from 'react-admin';
import { api } from './api';

// Resource names are operator API paths: `staff`, `audit`, `distributors`, `sandbox/transactions`,
// `production/kyc-reviews`, ... so the environment is part of every environment page's route.

interface Page {
  data: Record<string, unknown>[];
  nextCursor?: string | null;
}

/** Rows carry an `id` for react-admin; distributors and keys name theirs. */
function withId(row: Record<string, unknown>): RaRecord {
  const id = row.id ?? row.distributorId ?? row.keyId ?? row.eventId;
  return { ...row, id: id as string };
}

// The API pages with cursors; react-admin with page numbers: the cursor of page n+1 is remembered when
// page n is read (react-admin's "partial pagination": hasNextPage instead of a total).
const cursors = new Map<string, (string | null)[]>();

/**
 * The API lists webhook subscriptions (a distributor has a few) but has no read of one: the subscription
 * page finds it in the list.
 */
async function subscription(resource: string, id: string): Promise<RaRecord> {
  let cursor: string | undefined;
  do {
    const page = await api<Page>(`/${resource}`, { query: { limit: 100, cursor } });
    const found = page.data.find((row) => row.id === id);
    if (found) return withId(found);
    cursor = page.nextCursor ?? undefined;
  } while (cursor);
  throw new HttpError(`No webhook subscription ${id}`, 404, {
    code: 'not_found',
    message: `No webhook subscription ${id}`,
  });
}

export const dataProvider = {
  async getList(resource, params) {
    const perPage = params.pagination?.perPage ?? 25;
    const page = params.pagination?.page ?? 1;
    const key = `${resource}|${perPage}|${JSON.stringify(params.filter ?? {})}`;
    const known = cursors.get(key) ?? [null];
    const cursor = page > 1 ? known[page - 1] : null;
    const answer = await api<Page | Record<string, unknown>[]>(`/${resource}`, {
      query: { ...(params.filter ?? {}), limit: Math.min(perPage, 100), cursor: cursor ?? undefined },
    });
    const body: Page = Array.isArray(answer) ? { data: answer, nextCursor: null } : answer;
    known[page] = body.nextCursor ?? null;
    cursors.set(key, known);
    const data = body.data.map(withId);
    // On the last page the total is known; before it, only that there is more.
    if (!body.nextCursor) return { data, total: (page - 1) * perPage + data.length };
    return { data, pageInfo: { hasNextPage: true, hasPreviousPage: page > 1 } };
  },
  async getOne(resource, params) {
    if (resource.endsWith('/webhook-subscriptions'))
      return { data: await subscription(resource, String(params.id)) };
    const body = await api<Record<string, unknown>>(`/${resource}/${encodeURIComponent(String(params.id))}`);
    return { data: { ...withId(body), id: params.id } };
  },
  async getMany(resource, params) {
    const data = await Promise.all(
      params.ids.map(async (id) => (await dataProvider.getOne(resource, { id })).data),
    );
    return { data };
  },
  async getManyReference() {
    throw new Error('not used by the dashboard');
  },
  async create() {
    throw new Error('the dashboard changes things through its action dialogs');
  },
  async update() {
    throw new Error('the dashboard changes things through its action dialogs');
  },
  async updateMany() {
    throw new Error('the dashboard changes things through its action dialogs');
  },
  async delete() {
    throw new Error('the dashboard changes things through its action dialogs');
  },
  async deleteMany() {
    throw new Error('the dashboard changes things through its action dialogs');
  },
} as DataProvider;
