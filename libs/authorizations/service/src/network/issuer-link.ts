import type { Environment } from '@cip/shared/contracts';
import { IsoClient, type IsoLinkEvent, type IsoMessage } from '@cip/shared/iso8583';
import type { Logger } from '@cip/shared/runtime';
import type { AuthorizationsService, NetworkAnswer } from '../authorizations.service';
import {
  answer,
  readAuthorizationRequest,
  readReversalRequest,
  UnreadableMessage,
} from './iso-issuer-messages';
import { RESPONSE } from './response-codes';

/** Where the issuer reaches the card network (`CARD_NETWORK_ISO_ADDRESS`, host:port) and for which environment. */
export interface CardNetworkLinkConfig {
  environment: Environment;
  host: string;
  port: number;
  /** CARD_NETWORK_ZPK: the zone PIN key DE-052 PIN blocks arrive encrypted under (hex, 32 or 48 digits). */
  zpkHex: string;
}

/**
 * The issuer's end of the card network link: connects as an `IsoClient` (reconnecting), answers the
 * network's 0100 / 0120 / 0400 / 0420 through the service, and the 0800 echo by the library. A message it
 * cannot read, or a failure while deciding, is answered `96` (system malfunction) and nothing is recorded
 * for it, so the network stands in or retries. Logs carry the MTI, STAN and outcome only.
 */
export class IssuerLink {
  private readonly client: IsoClient;

  constructor(
    private readonly config: CardNetworkLinkConfig,
    private readonly authorizations: AuthorizationsService,
    private readonly logger: Logger,
  ) {
    this.client = new IsoClient({
      host: config.host,
      port: config.port,
      handler: (request) => this.handle(request),
      onEvent: (event) => this.report(event),
    });
  }

  start(): void {
    this.client.start();
  }

  get isConnected(): boolean {
    return this.client.isConnected;
  }

  close(): Promise<void> {
    return this.client.close();
  }

  /** Answers one inbound request (exposed for the link's tests). */
  async handle(request: IsoMessage): Promise<IsoMessage | void> {
    const { environment } = this.config;
    try {
      const outcome = await this.dispatch(environment, request);
      if (!outcome) return;
      return answer(request, outcome.responseCode, outcome.approvalCode, outcome.approvedAmount);
    } catch (error) {
      if (error instanceof UnreadableMessage) {
        this.logger.warn({ mti: request.mti, reason: error.message }, 'card network message refused');
      } else {
        this.logger.error({ err: error, mti: request.mti }, 'card network message failed');
      }
      return answer(request, RESPONSE.systemMalfunction);
    }
  }

  private dispatch(environment: Environment, request: IsoMessage): Promise<NetworkAnswer> | null {
    switch (request.mti) {
      case '0100':
      case '0120':
        return this.authorizations.authorize(
          environment,
          readAuthorizationRequest(request, this.config.zpkHex),
        );
      case '0400':
      case '0420':
        return this.authorizations.reverse(environment, readReversalRequest(request));
      default:
        return null;
    }
  }

  private report(event: IsoLinkEvent): void {
    const { environment, host, port } = this.config;
    switch (event.type) {
      case 'connected':
        this.logger.info({ environment, remote: event.remote }, 'card network link up');
        break;
      case 'disconnected':
        this.logger.warn(
          { environment, remote: event.remote, failedInFlight: event.failedInFlight },
          'card network link down',
        );
        break;
      case 'reconnect_scheduled':
        if (event.attempt % 10 === 0) {
          this.logger.warn(
            { environment, address: `${host}:${port}`, attempt: event.attempt },
            'card network link: reconnecting',
          );
        }
        break;
      case 'format_error':
      case 'frame_too_large':
      case 'unmatched_response':
      case 'unhandled_request':
      case 'handler_failed':
      case 'echo_failed':
        this.logger.warn({ environment, event: event.type }, 'card network link');
        break;
      default:
        break;
    }
  }
}
