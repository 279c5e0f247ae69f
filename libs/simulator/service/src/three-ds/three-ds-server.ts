import type { CardSandboxApi } from '@cip/cards/contract';
import { Caller, DomainError, Environment, notFound } from '@cip/shared/contracts';
import type { Clock } from '@cip/shared/runtime';
import type {
  SimulatedDirectoryServerApi,
  SimulatedThreeDs,
  SimulatedThreeDsResult,
  SimulateThreeDsInput,
  ThreeDsSimulationApi,
} from '@cip/simulator/contract';
import { currencyExponent, currencyNumeric, toMinorUnits } from '@cip/simulator/domain';
import {
  EMV_3DS_VERSION,
  erro,
  readEmvMessage,
  type AReq,
  type ARes,
  type Erro,
  type RRes,
  type ThreeDsApi,
} from '@cip/three-ds/contract';
import { randomUUID } from 'node:crypto';
import type { ThreeDsServerStore } from './three-ds-server-store';

/** Where the sandbox's 3DS actors are reached: the ACS (THREE_DS_BASE_URL) and the simulator's own DS. */
export interface ThreeDsAddresses {
  /** THREE_DS_BASE_URL: the AReq goes to `<acsBaseUrl>/<environment>/areq`. */
  acsBaseUrl: string;
  /** The simulated directory server's base URL: RReqs come to `<dsBaseUrl>/<environment>/rreq`. */
  dsBaseUrl: string;
}

export interface ThreeDsServerPorts {
  cards: CardSandboxApi;
  /** The platform's record of a challenge; null while the 3DS context is not in the runtime. */
  threeDs: Pick<ThreeDsApi, 'getCardAuthentication'> | null;
  store(environment: Environment): ThreeDsServerStore;
}

/** The sandbox merchant's 3DS server and requestor, and the directory server's ids, as the AReq names them. */
const SANDBOX_REQUESTOR = {
  threeDSRequestorID: 'CIP-SANDBOX-REQUESTOR',
  threeDSRequestorName: 'CIP Sandbox Requestor',
  threeDSRequestorURL: 'https://sandbox-merchant.example',
  threeDSRequestorAppURL: 'https://sandbox-merchant.example/3ds-return',
  threeDSServerRefNumber: 'CIP-3DSS-SANDBOX',
  threeDSServerURL: 'https://sandbox-3ds-server.example/notify',
  dsReferenceNumber: 'CIP-DS-SANDBOX',
  acquirerBIN: '400001',
  acquirerMerchantID: 'SANDBOXMERCH001',
  merchantCountryCode: '840',
  mcc: '5999',
};

/** `YYYYMMDDHHMMSS` (A.4 purchaseDate), UTC. */
const purchaseDate = (at: Date): string => at.toISOString().replace(/[-:T]/g, '').slice(0, 14);

/**
 * The sandbox's 3DS server and directory server (`ThreeDsSimulationApi`): builds the AReq of an app-channel
 * purchase or card verification with the cardholder's PAN and expiry from the card vault (never stored or
 * logged), posts it over HTTP to the ACS, and keeps the ARes and, later, the RReq the ACS sends to its DS URL.
 */
export class ThreeDsServerSimulator implements ThreeDsSimulationApi, SimulatedDirectoryServerApi {
  private addresses: ThreeDsAddresses | null = null;

  constructor(
    private readonly ports: ThreeDsServerPorts,
    private readonly clock: Clock,
  ) {}

  /** Set by the app once it listens (the ACS and the DS are on its port unless THREE_DS_BASE_URL says else). */
  useAddresses(addresses: ThreeDsAddresses): void {
    this.addresses = {
      acsBaseUrl: addresses.acsBaseUrl.replace(/\/+$/, ''),
      dsBaseUrl: addresses.dsBaseUrl.replace(/\/+$/, ''),
    };
  }

  async simulateThreeDs(caller: Caller, input: SimulateThreeDsInput): Promise<SimulatedThreeDsResult> {
    if (caller.environment !== 'sandbox')
      throw new DomainError('sandbox_only', 'Simulations are sandbox only');
    const addresses = this.addresses;
    if (!addresses) throw new DomainError('service_unavailable', 'The sandbox 3DS server is not started yet');
    const purchase = input.merchantAmount === undefined ? null : this.purchase(input);
    const card = await this.ports.cards.cardholderDetails(caller, input.cardId);
    const now = this.clock.now();
    const threeDSServerTransID = randomUUID();
    const areq: AReq = {
      messageType: 'AReq',
      messageVersion: EMV_3DS_VERSION,
      messageCategory: purchase ? '01' : '02',
      deviceChannel: '01',
      threeDSServerTransID,
      dsTransID: randomUUID(),
      dsURL: `${addresses.dsBaseUrl}/${caller.environment}/rreq`,
      ...SANDBOX_REQUESTOR,
      acctNumber: card.pan,
      cardExpiryDate: `${String(card.expYear).slice(-2)}${String(card.expMonth).padStart(2, '0')}`,
      merchantName: input.merchantName,
      ...(purchase ?? {}),
      purchaseDate: purchaseDate(now),
      threeDSRequestorDecReqInd: 'Y',
      threeDSRequestorChallengeInd: '01',
      sdkAppID: randomUUID(),
      sdkTransID: randomUUID(),
      sdkReferenceNumber: 'CIP-SDK-SANDBOX',
      sdkMaxTimeout: '05',
      // The SDK's device data, encrypted for the DS (a JWE in production); the sandbox sends a placeholder.
      sdkEncData: 'sandbox-device-data',
      sdkEphemPubKey: { kty: 'EC', crv: 'P-256', x: 'sandbox', y: 'sandbox' },
      deviceRenderOptions: { sdkInterface: '03', sdkUiType: ['01', '02', '03', '04', '05'] },
    };
    const answer = await this.post(`${addresses.acsBaseUrl}/${caller.environment}/areq`, areq);
    const ares = answer.messageType === 'ARes' ? (answer as ARes) : null;
    const record = {
      distributorId: caller.distributorId,
      cardId: input.cardId,
      acsTransID: ares?.acsTransID ?? null,
      threeDSServerTransID,
      transStatus: ares?.transStatus ?? null,
      transStatusReason: ares?.transStatusReason ?? null,
      cardAuthenticationId: ares?.transStatus === 'D' ? `tds-${ares.acsTransID}` : null,
      error: ares ? null : (answer as Erro),
      authenticationValue: ares?.transStatus === 'Y' ? (ares.authenticationValue ?? null) : null,
      eci: ares?.transStatus === 'Y' ? (ares.eci ?? null) : null,
      result: null,
      createdAt: now.toISOString(),
    };
    // Kept only when a result may follow (a challenge): nothing else is looked up later.
    if (record.cardAuthenticationId) this.ports.store(caller.environment).record(record);
    const cardAuthentication =
      record.cardAuthenticationId && this.ports.threeDs
        ? await this.ports.threeDs.getCardAuthentication(caller, record.cardAuthenticationId)
        : null;
    return { ...this.render(record), cardAuthentication };
  }

  async simulatedThreeDs(caller: Caller, cardAuthenticationId: string): Promise<SimulatedThreeDs> {
    const known = this.ports
      .store(caller.environment)
      .byAcsTransID(cardAuthenticationId.replace(/^tds-/, ''));
    if (!known || known.distributorId !== caller.distributorId) {
      throw notFound('Simulated 3DS authentication', cardAuthenticationId);
    }
    return this.render(known);
  }

  /**
   * The DS side: an RReq from the ACS. Answers the RRes (`resultsStatus` 01, received) or the
   * specification's Erro (D) for a malformed message or an unknown transaction (301).
   */
  async receiveResult(environment: Environment, received: unknown): Promise<RRes | Erro> {
    const read = readEmvMessage('RReq', received, 'D');
    if ('error' in read) return read.error;
    const rreq = read.message;
    const recorded = this.ports.store(environment).recordResult(rreq.acsTransID, {
      transStatus: rreq.transStatus,
      transStatusReason: rreq.transStatusReason ?? null,
      eci: rreq.eci ?? null,
      authenticated: typeof rreq.authenticationValue === 'string',
      authenticationValue: rreq.authenticationValue ?? null,
      receivedAt: this.clock.now().toISOString(),
    });
    if (!recorded) {
      return erro({
        errorComponent: 'D',
        errorCode: '301',
        errorDescription: 'Transaction ID not recognised',
        errorDetail: 'acsTransID',
        errorMessageType: 'RReq',
        threeDSServerTransID: rreq.threeDSServerTransID,
        dsTransID: rreq.dsTransID,
        acsTransID: rreq.acsTransID,
      });
    }
    return {
      messageType: 'RRes',
      messageVersion: EMV_3DS_VERSION,
      threeDSServerTransID: rreq.threeDSServerTransID,
      dsTransID: rreq.dsTransID,
      acsTransID: rreq.acsTransID,
      resultsStatus: '01',
    };
  }

  private purchase(
    input: SimulateThreeDsInput,
  ): Pick<AReq, 'purchaseAmount' | 'purchaseCurrency' | 'purchaseExponent'> {
    const currency = input.merchantCurrency ?? 'USD';
    const numeric = currencyNumeric(currency);
    const minor = toMinorUnits(input.merchantAmount as number, currency);
    if (!numeric || minor === null) {
      throw new DomainError('validation_error', 'The amount is not one of the currency', [
        {
          field: numeric ? 'merchantAmount' : 'merchantCurrency',
          message: 'not a valid amount in this currency',
        },
      ]);
    }
    return {
      purchaseAmount: String(minor),
      purchaseCurrency: numeric,
      purchaseExponent: String(currencyExponent(currency)),
    };
  }

  private async post(url: string, areq: AReq): Promise<ARes | Erro> {
    const response = await fetch(url, {
      method: 'POST',
      headers: { 'content-type': 'application/json; charset=utf-8', accept: 'application/json' },
      body: JSON.stringify(areq),
      signal: AbortSignal.timeout(10_000),
    });
    const body = (await response.json().catch(() => null)) as ARes | Erro | null;
    if (!response.ok || !body || typeof body !== 'object') {
      throw new DomainError('service_unavailable', `The ACS answered the AReq with HTTP ${response.status}`);
    }
    return body;
  }

  private render(
    record: SimulatedThreeDs & { distributorId?: string; cardId?: string; acsTransID?: string | null },
  ): SimulatedThreeDs {
    const { distributorId: _d, cardId: _c, acsTransID: _a, ...rendered } = record;
    // Journal lines written before authentication values were shown lack them.
    return {
      ...rendered,
      authenticationValue: rendered.authenticationValue ?? null,
      eci: rendered.eci ?? null,
      result: rendered.result
        ? { ...rendered.result, authenticationValue: rendered.result.authenticationValue ?? null }
        : null,
    };
  }
}
