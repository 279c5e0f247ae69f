import { Caller, defineContext, type FindPage, type FindResult } from '@cip/shared/contracts';
import type { AuthorizationStatus } from './authorization.types';
import type { AuthorizationView } from './authorization-view';

// ---------------------------------------------------------------------------------------------------
// Distributors (/v1/authorizations), and the sandbox's lookup of the authorization a network message made.
// The decision itself is not an API method: it is made on the card network link (ISO 8583); the sandbox
// simulation drives that same link and finds the result with `findByNetworkReference`.
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
  /**
   * The caller's authorization the network knows by this acquirer id (DE-032) and RRN (DE-037), or null
   * (none yet, or another distributor's). `POST /v1/simulate/authorization` calls it once its 0110 is back.
   */
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
