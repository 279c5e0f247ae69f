import { AUTHORIZATIONS_OPTIONS, type AuthorizationsModuleOptions } from '@cip/authorizations/service';
import { platformServiceApp, serviceClients } from '@cip/platform/composition';
import { PLATFORM_SERVICES, serviceEnvPrefix } from '@cip/platform/registry';
import { PLATFORM_VARIABLES, readPlatformConfig } from '@cip/shared/runtime';

// What each app of the distributed runtime reads, for the specs of docker-compose.yml and the Helm chart: the
// apps and the services' ports come from PLATFORM_SERVICES, the variables of the configuration schema from
// PLATFORM_VARIABLES, and the per-app table below from the apps' composition (libs/platform/composition,
// apps/{gateway,dashboard,relay}/src/main.ts). A variable the table names that no code reads fails the
// specs, as does a deployment file giving an app a variable outside its row, or leaving out a required one.

/** Variables read outside the configuration schema, and where. */
const READ_ELSEWHERE = [
  // readStoreDriver, readDistributedConfig (libs/shared/infrastructure).
  'STORE_DRIVER',
  'EVENTSTORE_URL',
  'KAFKA_BROKERS',
  'MONGO_URL',
  'KAFKA_CLIENT_ID',
  // runContextService and the relay: /health and /metrics.
  'METRICS_PORT',
  // platformServiceApp: the simulator's way to the gateway.
  'GATEWAY_URL',
  // The service connection pool (libs/shared/transport/src/service-connections.ts).
  'SERVICE_CONNECTIONS',
  'SERVICE_CONNECTION_MAX_COMMANDS',
  'SERVICE_CONNECTION_MAX_AGE_MS',
];

const perEnvironment = (...names: string[]) =>
  names.flatMap((name) => [`${name}_SANDBOX`, `${name}_PRODUCTION`]);

export const SERVICES = PLATFORM_SERVICES.map((service) => service.name);
export const APPS = [...SERVICES, 'gateway', 'dashboard', 'relay'];
export const tcpPortOf = (service: string): number =>
  PLATFORM_SERVICES.find((candidate) => candidate.name === service)?.tcpPort ?? NaN;

/** Where each service listens: `<SERVICE>_HOST` and `<SERVICE>_TCP_PORT`. */
export const HOST_VARIABLES = SERVICES.map((service) => `${serviceEnvPrefix(service)}_HOST`);
const PORT_VARIABLES = SERVICES.map((service) => `${serviceEnvPrefix(service)}_TCP_PORT`);

const STORES = ['EVENTSTORE_URL', 'KAFKA_BROKERS', 'MONGO_URL', 'PERSONAL_DATA_MASTER_KEY'];
const ANY_APP = ['LOG_LEVEL', 'KAFKA_CLIENT_ID', 'HOST'];
/** The gateway, the dashboard and every service: the driver, and every service's address. */
const PLATFORM_APP = {
  requires: [...STORES, 'STORE_DRIVER', ...HOST_VARIABLES],
  may: [...ANY_APP, ...PORT_VARIABLES, ...READ_ELSEWHERE.filter((name) => name.startsWith('SERVICE_'))],
};
const SERVICE_APP = {
  requires: [...PLATFORM_APP.requires, 'METRICS_PORT', 'DATA_DIR'],
  may: PLATFORM_APP.may,
};

export interface AppVariables {
  /** Set in every deployment file. */
  requires: string[];
  /** Read when set (the code has a default, or the installation decides). */
  may: string[];
  /**
   * Keys the app makes under DATA_DIR/secrets on its first start when not given: the chart takes every one
   * from the Secret (replicas and pods whose disk is not kept must share them); compose gives them or keeps
   * the app's DATA_DIR on a named volume.
   */
  keys?: string[];
  /** Makes links users open (PUBLIC_BASE_URL): set wherever the installation says where the gateway is. */
  links?: boolean;
}

export const APP_VARIABLES: Record<string, AppVariables> = {
  users: SERVICE_APP,
  kyc: { ...SERVICE_APP, keys: ['KYC_LINK_SECRET'], links: true },
  cards: {
    // The distributed card vault refuses to start without every key (openMongoCardVault).
    requires: [
      ...SERVICE_APP.requires,
      ...perEnvironment('CARD_VAULT_KEKS', 'CARD_VAULT_INDEX_KEY', 'CARD_VAULT_CVK', 'CARD_VAULT_PVK'),
    ],
    may: [...SERVICE_APP.may, ...perEnvironment('CARD_BIN', 'CARD_LIFETIME_MONTHS')],
    links: true,
  },
  wallets: {
    ...SERVICE_APP,
    may: [
      ...SERVICE_APP.may,
      ...perEnvironment(
        'CHAIN_RPC_URL',
        'CHAIN_ID',
        'USDC_CONTRACT_ADDRESS',
        'CHAIN_CONFIRMATIONS',
        'CHAIN_POLL_INTERVAL_MS',
        'CHAIN_MAX_BLOCK_RANGE',
        'CHAIN_START_BLOCK',
        'HOT_WALLET_PRIVATE_KEY',
        'SETTLEMENT_ADDRESS',
      ),
      'SETTLEMENT_INTERVAL_MS',
    ],
    keys: perEnvironment('WALLET_HD_SEED'),
  },
  authorizations: {
    ...SERVICE_APP,
    // The card network: CARD_NETWORK_ISO_ADDRESS, else SIMULATOR_HOST:SIMULATOR_ISO_PORT.
    may: [
      ...SERVICE_APP.may,
      'CARD_NETWORK_ISO_ADDRESS',
      'SIMULATOR_ISO_PORT',
      'CARD_NETWORK_ZPK',
      'WEBHOOK_ALLOW_PRIVATE_URLS',
    ],
    keys: ['AUTHORIZATION_DECISIONING_SECRETS_KEY'],
  },
  simulator: {
    requires: [...SERVICE_APP.requires, 'SIMULATOR_ISO_PORT', 'GATEWAY_URL'],
    may: [
      ...SERVICE_APP.may,
      'SIMULATOR_ISO_HOST',
      'SIMULATOR_STAND_IN_TIMEOUT_MS',
      'SIMULATOR_STAND_IN_LIMIT_MINOR',
      'SIMULATOR_ACQUIRER_ID',
      'CARD_NETWORK_ZPK',
      'THREE_DS_BASE_URL',
    ],
  },
  webhooks: {
    ...SERVICE_APP,
    may: [...SERVICE_APP.may, 'WEBHOOK_ALLOW_PRIVATE_URLS'],
    keys: [...perEnvironment('WEBHOOK_SIGNING_KEY'), 'WEBHOOK_SECRETS_KEY'],
  },
  tokenization: SERVICE_APP,
  'three-ds': { ...SERVICE_APP, keys: perEnvironment('THREE_DS_AUTHENTICATION_VALUE_KEY'), links: true },
  gateway: {
    requires: [...PLATFORM_APP.requires, 'PORT'],
    may: [
      ...PLATFORM_APP.may,
      'BOOTSTRAP_SANDBOX_API_KEY',
      'BOOTSTRAP_PRODUCTION_API_KEY',
      'RATE_LIMIT_PER_SECOND',
      'RATE_LIMIT_BURST',
      'HTTP_HEADERS_TIMEOUT_MS',
      'HTTP_REQUEST_TIMEOUT_MS',
    ],
    links: true,
  },
  dashboard: {
    requires: [...PLATFORM_APP.requires, 'DASHBOARD_PORT'],
    may: [...PLATFORM_APP.may, 'DASHBOARD_PUBLIC_URL', 'HTTP_HEADERS_TIMEOUT_MS', 'HTTP_REQUEST_TIMEOUT_MS'],
  },
  // Only the stores: readDistributedConfig, METRICS_PORT, HOST (apps/relay/src/main.ts).
  relay: { requires: [...STORES, 'METRICS_PORT'], may: ANY_APP },
};

/** Every variable an app may be given: its requirements, its options, its keys, PUBLIC_BASE_URL if it links. */
/** An app's environment (`names`, as compose or the chart sets it) has every variable its row requires, and none it does not read. */
export function expectVariablesOfApp(app: string, names: string[]): void {
  const row = APP_VARIABLES[app];
  expect({ app, missing: row.requires.filter((name) => !names.includes(name)) }).toEqual({
    app,
    missing: [],
  });
  expect({ app, unread: names.filter((name) => !allowedVariables(app).has(name)) }).toEqual({
    app,
    unread: [],
  });
}

export function allowedVariables(app: string): Set<string> {
  const row = APP_VARIABLES[app];
  return new Set([
    ...row.requires,
    ...row.may,
    ...(row.keys ?? []),
    ...(row.links ? ['PUBLIC_BASE_URL'] : []),
  ]);
}

/** Variables of the table that no code reads (empty unless the table or the code drifted). */
export function unreadVariables(): string[] {
  const read = new Set([...PLATFORM_VARIABLES, ...READ_ELSEWHERE, ...HOST_VARIABLES, ...PORT_VARIABLES]);
  return [...new Set(APPS.flatMap((app) => [...allowedVariables(app)]))].filter((name) => !read.has(name));
}

/**
 * What an app started with this environment would do, read by the code itself: where it reaches every
 * service (`platformServiceApp` for a service, `serviceClients` for the gateway and the dashboard; the relay
 * reaches none) and, for authorizations, the card network it links to. Throws a ConfigError for a value the
 * configuration schema refuses.
 */
export function composedApp(
  app: string,
  env: Record<string, string>,
): { remotes: Record<string, string>; cardNetwork?: string } {
  readPlatformConfig(env);
  if (app === 'relay') return { remotes: {} };
  const service = SERVICES.includes(app) ? platformServiceApp(app, env) : null;
  const remotes = Object.fromEntries(
    (service?.remotes ?? serviceClients(null, env)).map((remote) => [
      remote.service,
      `${remote.host}:${remote.port}`,
    ]),
  );
  const authorizations = (service?.providers ?? []).find(
    (provider) => (provider as { provide?: unknown }).provide === AUTHORIZATIONS_OPTIONS,
  ) as { useValue: AuthorizationsModuleOptions } | undefined;
  const network = authorizations?.useValue.network;
  return { remotes, cardNetwork: network ? `${network.host}:${network.port}` : undefined };
}

/** Where `app` should reach every other service: `<host of service>:<its PLATFORM_SERVICES port>`. */
export function expectedRemotes(app: string, hostOf: (service: string) => string): Record<string, string> {
  return Object.fromEntries(
    SERVICES.filter((service) => service !== app).map((service) => [
      service,
      `${hostOf(service)}:${tcpPortOf(service)}`,
    ]),
  );
}
