import 'reflect-metadata';
import { authorizationsContract } from '@cip/authorizations/contract';
import { cardSandboxContract } from '@cip/cards/contract';
import { readPort } from '@cip/shared/infrastructure/distributed';
import { readSimulatorConfig, systemClock } from '@cip/shared/runtime';
import { ContextTransportModule, runContextService } from '@cip/shared/transport';
import { SIMULATOR_OPTIONS, simulatorContext, startSandboxNetwork } from '@cip/simulator/service';

/**
 * The card network simulator of the distributed runtime: the sandbox's card network listening for the
 * issuer on SIMULATOR_ISO_PORT (8583; the authorizations service connects to it, CARD_NETWORK_ISO_ADDRESS),
 * and the simulations' contract on SIMULATOR_TCP_PORT for the gateway. It reaches the cards service
 * (CARDS_HOST:CARDS_TCP_PORT) for the cardholder's details and the authorizations service
 * (AUTHORIZATIONS_HOST:AUTHORIZATIONS_TCP_PORT) for the issuer's records. Journal and clearing files:
 * SIMULATOR_DATA_DIR (default ./data).
 */
runContextService({
  name: 'simulator',
  contexts: [simulatorContext],
  tcpPort: { env: 'SIMULATOR_TCP_PORT', default: 4060 },
  imports: [
    ContextTransportModule.forClient({
      service: 'cards',
      host: process.env.CARDS_HOST || 'cards',
      port: readPort('CARDS_TCP_PORT', 4030),
      contracts: [cardSandboxContract],
    }),
    ContextTransportModule.forClient({
      service: 'authorizations',
      host: process.env.AUTHORIZATIONS_HOST || 'authorizations',
      port: readPort('AUTHORIZATIONS_TCP_PORT', 4050),
      contracts: [authorizationsContract],
    }),
  ],
  providers: [
    {
      provide: SIMULATOR_OPTIONS,
      useFactory: async () => {
        const network = await startSandboxNetwork({
          config: readSimulatorConfig(process.env, { isoPort: 8583, isoHost: '0.0.0.0' }),
          dataDir: process.env.SIMULATOR_DATA_DIR || 'data',
          clock: systemClock,
        });
        process.stderr.write(`card network listening for the issuer on ${network.address}\n`);
        return network.options;
      },
    },
  ],
});
