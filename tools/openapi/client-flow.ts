// Type-checked by openapi-client.int.spec.ts beside `api.d.ts`, generated there from the served document by
// openapi-typescript (the root tsconfig leaves this file out: `./api` exists only in that directory).
import createClient from 'openapi-fetch';
import type { components, paths } from './api';

type Schemas = components['schemas'];
/** True only when A and B are the same type (not merely assignable). */
type Same<A, B> = (<T>() => T extends A ? 1 : 2) extends <T>() => T extends B ? 1 : 2 ? true : false;

/** What the flow saw, for the test to check against the platform's behaviour. */
export interface ClientFlowOutcome {
  userId: string;
  /** null once the user is erased (crypto-shredding). */
  readEmail: string | null;
  listed: { count: number; hasMore: boolean; ids: string[] };
  noAddressYet: boolean;
  invalidField: string | undefined;
  notFoundCode: string;
  walletsOfUser: number;
  signingAlgorithm: string;
}

/**
 * A small integration as a distributor writes it with a generated client: create a user, read it, list it,
 * meet a validation error and a missing resource, list its wallets and read the webhook signing key. Every
 * value is read through the generated types, so a wrong schema stops this file from type-checking.
 */
export async function runClientFlow(
  baseUrl: string,
  apiKey: string,
  email: string,
): Promise<ClientFlowOutcome> {
  const client = createClient<paths>({ baseUrl, headers: { 'x-api-key': apiKey } });

  const created = await client.POST('/v1/users', {
    params: { header: { 'x-idempotency-key': `client-flow-${email}` } },
    body: { email, firstName: 'Ada', lastName: 'Lovelace', countryOfResidence: 'FR' },
  });
  if (!created.data) throw new Error(`createUser failed: ${JSON.stringify(created.error)}`);
  const user: Schemas['User'] = created.data;
  // Nullable fields keep their type: an address or null, a phone or null (neither a bare object nor never null).
  const nullableTypes: [
    Same<Schemas['User']['shippingAddress'], Schemas['ShippingAddress'] | null>,
    Same<Schemas['User']['phone'], Schemas['Phone'] | null>,
  ] = [true, true];
  const city: string | undefined = user.shippingAddress?.city;
  const phoneNumber: string | undefined = user.phone?.number;

  const read = await client.GET('/v1/users/{userId}', { params: { path: { userId: user.id } } });
  if (!read.data) throw new Error(`getUser failed: ${JSON.stringify(read.error)}`);

  const list = await client.GET('/v1/users', {
    params: { query: { email, limit: 10, sortBy: '-createdAt' } },
  });
  if (!list.data) throw new Error(`listUsers failed: ${JSON.stringify(list.error)}`);
  const page: { count: number; hasMore: boolean; items: Schemas['User'][] } = list.data;

  const invalid = await client.POST('/v1/users', {
    body: { email: 'not an email', firstName: 'Ada', lastName: 'Lovelace', countryOfResidence: 'FR' },
  });
  if (!invalid.error || invalid.error.error.code !== 'validation_error') {
    throw new Error(`an invalid email was not refused with validation_error: ${invalid.response.status}`);
  }
  const invalidField: string | undefined = invalid.error.error.details?.[0]?.field;

  const missing = await client.GET('/v1/users/{userId}', {
    params: { path: { userId: 'usr-00000000-0000-4000-8000-000000000000' } },
  });
  if (!missing.error || missing.error.error.code !== 'not_found') {
    throw new Error(`an unknown user was not 404 not_found: ${missing.response.status}`);
  }

  const wallets = await client.GET('/v1/wallets', { params: { query: { userId: user.id } } });
  if (!wallets.data) throw new Error(`listWallets failed: ${JSON.stringify(wallets.error)}`);
  const balances: number[] = wallets.data.items.map((wallet) => wallet.availableBalance);

  const key = await client.GET('/v1/webhook-subscriptions/public-key');
  if (!key.data) throw new Error(`getWebhookPublicKey failed: ${JSON.stringify(key.error)}`);

  return {
    userId: user.id,
    readEmail: read.data.email,
    listed: { count: page.count, hasMore: page.hasMore, ids: page.items.map((item) => item.id) },
    noAddressYet: nullableTypes.every(Boolean) && city === undefined && phoneNumber === undefined,
    invalidField,
    notFoundCode: missing.error.error.code,
    walletsOfUser: balances.length,
    signingAlgorithm: key.data.keys[0].algorithm,
  };
}
