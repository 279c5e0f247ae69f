import type { Environment } from '@cip/shared/contracts';
import type { IsoLinkEvent } from '@cip/shared/iso8583';
import type { Clock } from '@cip/shared/runtime';
import { join } from 'node:path';
import { CardNetwork } from './card-network';
import { SimulatorStore } from './simulator-store';
import type { SimulatorModuleOptions } from './simulator.module';

/**
 * The zone PIN key of the sandbox (double-length TDES, hex), shared by the simulator and the issuer to
 * encrypt DE-052 PIN blocks when CARD_NETWORK_ZPK is unset. Public on purpose: sandbox PINs are test data.
 */
export const SANDBOX_ZPK = '0123456789ABCDEFFEDCBA9876543210';

/** The simulator's settings, from the environment. */
export interface SandboxNetworkConfig {
  /** SIMULATOR_ISO_PORT: where the issuer connects (0: any free port, the embedded default). */
  isoPort: number;
  /** SIMULATOR_ISO_HOST: loopback by default. */
  isoHost: string;
  /** SIMULATOR_STAND_IN_TIMEOUT_MS: how long the network waits for the issuer's 0110 (default 3,000). */
  standInTimeoutMs: number;
  /** SIMULATOR_STAND_IN_LIMIT_MINOR: the largest stand-in approval, minor units of the transaction currency. */
  standInLimitMinor: number;
  /** SIMULATOR_ACQUIRER_ID: DE-032 of the sandbox acquirer. */
  acquirerId: string;
  /** CARD_NETWORK_ZPK: zone PIN key shared with the issuer. */
  zpkHex: string;
}

function integer(env: NodeJS.ProcessEnv, name: string, fallback: number, min: number, max: number): number {
  const raw = env[name];
  if (raw === undefined || raw === '') return fallback;
  const value = Number(raw);
  if (!Number.isInteger(value) || value < min || value > max) {
    throw new Error(`${name} must be an integer from ${min} to ${max}`);
  }
  return value;
}

export function readSandboxNetworkConfig(
  env: NodeJS.ProcessEnv = process.env,
  defaults: { isoPort: number; isoHost?: string } = { isoPort: 0 },
): SandboxNetworkConfig {
  const zpkHex = env.CARD_NETWORK_ZPK || SANDBOX_ZPK;
  if (!/^([0-9A-Fa-f]{32}|[0-9A-Fa-f]{48})$/.test(zpkHex)) {
    throw new Error('CARD_NETWORK_ZPK must be 32 or 48 hex digits (a double or triple length TDES key)');
  }
  const acquirerId = env.SIMULATOR_ACQUIRER_ID || '400001';
  if (!/^\d{1,11}$/.test(acquirerId)) throw new Error('SIMULATOR_ACQUIRER_ID must be 1 to 11 digits');
  return {
    isoPort: integer(env, 'SIMULATOR_ISO_PORT', defaults.isoPort, 0, 65_535),
    isoHost: env.SIMULATOR_ISO_HOST || defaults.isoHost || '127.0.0.1',
    standInTimeoutMs: integer(env, 'SIMULATOR_STAND_IN_TIMEOUT_MS', 3_000, 1, 60_000),
    standInLimitMinor: integer(env, 'SIMULATOR_STAND_IN_LIMIT_MINOR', 10_000, 0, 999_999_999_999),
    acquirerId,
    zpkHex,
  };
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
      acquirer: { acquirerId: config.acquirerId, country: '840', zpkHex: config.zpkHex },
      close: () => network.close(),
    },
  };
}
