import { Caller, defineContext, type Environment } from '@cip/shared/contracts';
import type { CardAuthenticationView, Erro, RRes, TransStatus } from '@cip/three-ds/contract';

// ---------------------------------------------------------------------------------------------------
// The sandbox's 3DS server and directory server (`/v1/simulate/3ds`): the simulator builds the AReq a
// merchant's 3DS server would (EMV 3DS 2.2, app channel, decoupled authentication accepted), posts it over
// HTTP to the ACS at THREE_DS_BASE_URL, and receives the RReq that ends a challenge at its own DS URL.
// ---------------------------------------------------------------------------------------------------

/** `POST /v1/simulate/3ds`: a purchase (with an amount) or a card verification (without). */
export interface SimulateThreeDsInput {
  cardId: string;
  merchantName: string;
  /** In `merchantCurrency` units; absent: a card verification (EMV message category 02). */
  merchantAmount?: number;
  /** ISO 4217 alphabetic; USD when absent (with an amount). */
  merchantCurrency?: string;
}

/** What the 3DS server saw of one authentication: the ARes, and the RReq once the ACS sent it. */
export interface SimulatedThreeDs {
  threeDSServerTransID: string;
  /** The ARes's transStatus (`D`: a challenge the distributor decides), null when the ACS answered Erro. */
  transStatus: TransStatus | null;
  transStatusReason: string | null;
  /** `tds-<acsTransID>` of a challenge (the platform's card authentication id), else null. */
  cardAuthenticationId: string | null;
  /** The ACS's Erro, when it sent one instead of an ARes. */
  error: Erro | null;
  /**
   * A frictionless ARes `Y`: its authentication value (CAVV) and ECI, which the merchant puts in the
   * authorization (`POST /v1/simulate/authorization` `threeDs`); null otherwise.
   */
  authenticationValue: string | null;
  eci: string | null;
  /** The RReq the ACS sent at the end of the challenge; null until then. */
  result: {
    transStatus: string;
    transStatusReason: string | null;
    eci: string | null;
    /** Whether the RReq carried an authentication value. */
    authenticated: boolean;
    /** The RReq's authentication value (a `Y`), for the authorization that follows; null otherwise. */
    authenticationValue: string | null;
    receivedAt: string;
  } | null;
  createdAt: string;
}

export interface SimulatedThreeDsResult extends SimulatedThreeDs {
  /** The platform's record of the challenge (`GET /v1/3ds/{id}`), when there is one. */
  cardAuthentication: CardAuthenticationView | null;
}

export interface ThreeDsSimulationApi {
  simulateThreeDs(caller: Caller, input: SimulateThreeDsInput): Promise<SimulatedThreeDsResult>;
  /** What the sandbox 3DS server saw of a challenge (its RReq once sent); 404 for another's or unknown. */
  simulatedThreeDs(caller: Caller, cardAuthenticationId: string): Promise<SimulatedThreeDs>;
}

export const THREE_DS_SIMULATION_API = Symbol('THREE_DS_SIMULATION_API');

export const threeDsSimulationContract = defineContext<ThreeDsSimulationApi>({
  name: 'simulator.3ds',
  token: THREE_DS_SIMULATION_API,
  methods: {
    simulateThreeDs: ['caller', 'input'],
    simulatedThreeDs: ['caller', 'cardAuthenticationId'],
  },
});

/**
 * The sandbox directory server's audience: the ACS's RReq (any JSON body, as received) answered with an RRes
 * or the specification's Erro. Reached at the simulator's DS URL (the AReqs' `dsURL`), without an API key.
 */
export interface SimulatedDirectoryServerApi {
  receiveResult(environment: Environment, message: unknown): Promise<RRes | Erro>;
}

export const SIMULATED_DIRECTORY_SERVER_API = Symbol('SIMULATED_DIRECTORY_SERVER_API');

export const simulatedDirectoryServerContract = defineContext<SimulatedDirectoryServerApi>({
  name: 'simulator.3ds-directory-server',
  token: SIMULATED_DIRECTORY_SERVER_API,
  methods: { receiveResult: ['environment', 'message'] },
});
