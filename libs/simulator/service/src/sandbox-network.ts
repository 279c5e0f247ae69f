import type { Environment } from '@cip/shared/contracts';
import type { IsoLinkEvent } from '@cip/shared/iso8583';
import type { Clock, SimulatorConfig } from '@cip/shared/runtime';
import { join } from 'node:path';
import { CardNetwork } from './card-network';
import { SimulatorStore } from './simulator-store';
import { ThreeDsServerStore } from './three-ds/three-ds-server-store';
import type { SimulatorModuleOptions } from './simulator.module';

/** The simulator's settings (`readPlatformConfig` / `readSimulatorConfig`) and the ZPK shared with the issuer. */
export interface SandboxNetworkConfig extends SimulatorConfig {
  /** CARD_NETWORK_ZPK: the zone PIN key DE-052 PIN blocks are encrypted under. */
  zpkHex: string;
}

export interface SandboxNetwork {
  network: CardNetwork;
  /** `host:port` the issuer connects to (CARD_NETWORK_ISO_ADDRESS of the platform). */
  address: string;
  options: SimulatorModuleOptions;
}

/**
 * Starts the sandbox card network: listens for the issuer and keeps its journal and clearing files under
 * `<dataDir>/simulator/sandbox/`. Production gets no network (the simulations answer `403 sandbox_only`).
 */
export async function startSandboxNetwork(input: {
  config: SandboxNetworkConfig;
  dataDir: string;
  clock: Clock;
  onEvent?: (event: IsoLinkEvent) => void;
}): Promise<SandboxNetwork> {
  const { config } = input;
  const network = new CardNetwork({
    clock: input.clock,
    standInTimeoutMs: config.standInTimeoutMs,
    standIn: { limitMinor: config.standInLimitMinor },
    onEvent: input.onEvent,
  });
  const address = await network.listen(config.isoPort, config.isoHost);
  const stores = new Map<Environment, SimulatorStore>();
  const threeDsStores = new Map<Environment, ThreeDsServerStore>();
  return {
    network,
    address,
    options: {
      network: (environment) => (environment === 'sandbox' ? network : null),
      store: (environment) => {
        let store = stores.get(environment);
        if (!store) {
          store = new SimulatorStore(join(input.dataDir, 'simulator', environment));
          stores.set(environment, store);
        }
        return store;
      },
      threeDsStore: (environment) => {
        let store = threeDsStores.get(environment);
        if (!store) {
          store = new ThreeDsServerStore(join(input.dataDir, 'simulator', environment));
          threeDsStores.set(environment, store);
        }
        return store;
      },
      acquirer: { acquirerId: config.acquirerId, country: '840', zpkHex: config.zpkHex },
      close: () => network.close(),
    },
  };
}
