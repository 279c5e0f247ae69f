import type { ContextDefinition } from '@cip/shared/infrastructure';
import { readPort } from '@cip/shared/runtime';
import { authorizationsContext } from '@cip/authorizations/service';
import { cardsContext } from '@cip/cards/service';
import { eventsContext } from '@cip/events/service';
import { kycContext } from '@cip/kyc/service';
import { simulatorContext } from '@cip/simulator/service';
import { threeDsContext } from '@cip/three-ds/service';
import { tokenizationContext } from '@cip/tokenization/service';
import { usersContext } from '@cip/users/service';
import { walletsContext } from '@cip/wallets/service';
import { webhooksContext } from '@cip/webhooks/service';

/** One service of the distributed runtime: an app of its own (`apps/<name>`) hosting these contexts. */
export interface PlatformService {
  /** The app's name; `<NAME>_HOST` and `<NAME>_TCP_PORT` (dashes as underscores) say where it listens. */
  readonly name: string;
  /** The TCP port of its contracts by default. */
  readonly tcpPort: number;
  /** The contexts it hosts: their modules, consumers and contracts (every other process has clients). */
  readonly contexts: readonly ContextDefinition[];
}

/**
 * The platform split into services: every context of PLATFORM_CONTEXTS in exactly one of them. The gateway,
 * the dashboard, the services themselves (clients of the others) and the split launcher read this table.
 */
export const PLATFORM_SERVICES: readonly PlatformService[] = [
  { name: 'users', tcpPort: 4010, contexts: [usersContext] },
  { name: 'kyc', tcpPort: 4020, contexts: [kycContext] },
  { name: 'cards', tcpPort: 4030, contexts: [cardsContext] },
  { name: 'wallets', tcpPort: 4040, contexts: [walletsContext] },
  // Its issuer is the ISO 8583 client of the card network at CARD_NETWORK_ISO_ADDRESS.
  { name: 'authorizations', tcpPort: 4050, contexts: [authorizationsContext] },
  // Beside the context: the sandbox card network's ISO 8583 server and the sandbox 3DS server.
  { name: 'simulator', tcpPort: 4060, contexts: [simulatorContext] },
  // The webhooks dispatcher: it records every context's public Events (the events context) and delivers them.
  { name: 'webhooks', tcpPort: 4070, contexts: [webhooksContext, eventsContext] },
  { name: 'tokenization', tcpPort: 4080, contexts: [tokenizationContext] },
  { name: 'three-ds', tcpPort: 4090, contexts: [threeDsContext] },
];

/** A service of the table by name; throws for a name it does not have. */
export function platformService(name: string): PlatformService {
  const service = PLATFORM_SERVICES.find((candidate) => candidate.name === name);
  if (!service) throw new Error(`No service named ${name} (PLATFORM_SERVICES)`);
  return service;
}

/** The prefix of a service's variables: `three-ds` -> `THREE_DS`. */
export const serviceEnvPrefix = (service: string): string => service.toUpperCase().replace(/-/g, '_');

/** Where a service listens for its contracts: `<SERVICE>_HOST` (default `localhost`) and `<SERVICE>_TCP_PORT`. */
export function serviceAddress(
  service: string,
  env: NodeJS.ProcessEnv = process.env,
): { host: string; port: number } {
  const prefix = serviceEnvPrefix(service);
  return {
    host: env[`${prefix}_HOST`] || 'localhost',
    port: readPort(`${prefix}_TCP_PORT`, platformService(service).tcpPort, env),
  };
}
