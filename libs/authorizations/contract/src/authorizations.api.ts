import { Caller, defineContext, type FindPage, type FindResult } from '@cip/shared/contracts';
import type { AuthorizationStatus } from './authorization.types';
import type { AuthorizationView } from './authorization-view';

// ---------------------------------------------------------------------------------------------------
// Distributors (/v1/authorizations). A sketch: no service implements it yet (the context is not in the
// platform registry). The decision itself is not an API method: it is made on the card network link
// (ISO 8583) and by the sandbox simulation, which will get their own audiences.
// ---------------------------------------------------------------------------------------------------

/** Equality filters of `GET /v1/authorizations?cardId=&userId=&status=` (API-DECISIONS). */
export interface AuthorizationListFilter {
  cardId?: string;
  userId?: string;
  status?: AuthorizationStatus;
}

export interface AuthorizationsApi {
  /** `404 not_found` for an unknown authorization or another distributor's. */
  getAuthorization(caller: Caller, authorizationId: string): Promise<AuthorizationView>;
  listAuthorizations(
    caller: Caller,
    filter: AuthorizationListFilter,
    page: FindPage,
  ): Promise<FindResult<AuthorizationView>>;
  /** The authorization the network knows by acquirer (DE-032) and RRN (DE-037); null when none is the caller's. */
  findByNetworkReference(
    caller: Caller,
    ref: { acquirerId: string; rrn: string },
  ): Promise<AuthorizationView | null>;
}

export const AUTHORIZATIONS_API = Symbol('AUTHORIZATIONS_API');

export const authorizationsContract = defineContext<AuthorizationsApi>({
  name: 'authorizations',
  token: AUTHORIZATIONS_API,
  methods: {
    getAuthorization: ['caller', 'authorizationId'],
    listAuthorizations: ['caller', 'filter', 'page'],
    findByNetworkReference: ['caller', 'ref'],
  },
});
