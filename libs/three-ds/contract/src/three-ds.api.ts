import { Caller, defineContext, type Environment } from '@cip/shared/contracts';
import type { CardAuthenticationView } from './card-authentication-view';
import type { ARes, Erro } from './emv-3ds';

/**
 * What a distributor does with its card authentications (`/v1/3ds/...`, the API key): read one, and answer
 * it. An answer after `expiresAt` is `409 card_authentication_expired`; a second answer (or one on an
 * expired challenge still in its grace) `409 invalid_state_transition`; both change nothing. Another
 * distributor's id is not found.
 */
export interface ThreeDsApi {
  getCardAuthentication(caller: Caller, cardAuthenticationId: string): Promise<CardAuthenticationView>;
  acceptCardAuthentication(caller: Caller, cardAuthenticationId: string): Promise<CardAuthenticationView>;
  rejectCardAuthentication(caller: Caller, cardAuthenticationId: string): Promise<CardAuthenticationView>;
}

export const THREE_DS_API = Symbol('THREE_DS_API');

export const threeDsContract = defineContext<ThreeDsApi>({
  name: 'three-ds',
  token: THREE_DS_API,
  methods: {
    getCardAuthentication: ['caller', 'cardAuthenticationId'],
    acceptCardAuthentication: ['caller', 'cardAuthenticationId'],
    rejectCardAuthentication: ['caller', 'cardAuthenticationId'],
  },
});

/**
 * The access control server's audience: the directory server's AReq (any JSON body, as received) answered
 * with an ARes or the specification's Erro. Acts on any distributor's card of the environment: reached at
 * the 3DS host (`THREE_DS_BASE_URL`), never with an API key. The PAN crosses in process only (a remote
 * deployment needs mutual TLS with the DS, as EMVCo requires) and is never logged, kept or returned.
 */
export interface AcsApi {
  authenticationRequest(environment: Environment, message: unknown): Promise<ARes | Erro>;
  /**
   * The browser challenge (ARes `C`): the cardholder's browser posts the CReq (`creq`, base64url JSON) to the
   * ARes's `acsURL`; the answer is the screen to show.
   */
  challengeRequest(environment: Environment, creq: unknown): Promise<ChallengeScreen>;
}

/** The browser challenge page, a hosted page of the platform: the ARes's `acsURL` is `<public base><it>/<env>`. */
export const CHALLENGE_PAGE_PATH = '/hosted/3ds/challenge';

/**
 * What the challenge page shows: the purchase while the distributor's answer is awaited (the cardholder
 * approves in the distributor's app, out of band, and continues), or the final CRes to post back to the
 * 3DS requestor's `notificationURL`; `invalid` for a CReq that names no challenge of this ACS.
 */
export type ChallengeScreen =
  | { kind: 'invalid' }
  | {
      kind: 'pending';
      merchantName: string;
      merchantAmount: string | null;
      merchantCurrency: string | null;
      maskedPan: string;
      expiresAt: string;
      /** The CReq again, for the page's "continue" button. */
      creq: string;
    }
  | { kind: 'done'; transStatus: 'Y' | 'N'; notificationURL: string; cres: string };

export const ACS_API = Symbol('ACS_API');

export const acsContract = defineContext<AcsApi>({
  name: 'three-ds.acs',
  token: ACS_API,
  methods: { authenticationRequest: ['environment', 'message'], challengeRequest: ['environment', 'creq'] },
});
