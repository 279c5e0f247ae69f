import { PLATFORM_SERVICES, serviceEnvPrefix } from './services';

// What each app of the split platform reads from its environment, in one table: the split launcher
// (libs/platform/topologies, `npm run start:split`) builds each process's environment from it, and the specs
// of docker-compose.yml and the Helm chart (tools/deploy) check every deployment file against it and it
// against the code (the configuration schema, PLATFORM_VARIABLES, and NON_SCHEMA_VARIABLES below). The rows
// come from the apps' composition: platformServiceApp and runContextService for the services,
// apps/{gateway,dashboard,relay}/src/main.ts for the others.

/** Every app of the split platform: one per service of PLATFORM_SERVICES, then the gateway, the dashboard, the relay. */
export const PLATFORM_APPS: readonly string[] = [
  ...PLATFORM_SERVICES.map((service) => service.name),
  'gateway',
  'dashboard',
  'relay',
];

/** Where each service listens: `<SERVICE>_HOST` and `<SERVICE>_TCP_PORT` (serviceAddress). */
export const SERVICE_HOST_VARIABLES = PLATFORM_SERVICES.map(
  (service) => `${serviceEnvPrefix(service.name)}_HOST`,
);
export const SERVICE_PORT_VARIABLES = PLATFORM_SERVICES.map(
  (service) => `${serviceEnvPrefix(service.name)}_TCP_PORT`,
);

/** Variables read outside the configuration schema (PLATFORM_VARIABLES) and the services' addresses, and where. */
export const NON_SCHEMA_VARIABLES: readonly string[] = [
  // readStoreDriver, readDistributedConfig, readPostgresConfig (libs/shared/infrastructure).
  'STORE_DRIVER',
  'EVENTSTORE_URL',
  'KAFKA_BROKERS',
  'MONGO_URL',
  'KAFKA_CLIENT_ID',
  'DATABASE_URL',
  'PERSONAL_DATA_DATABASE_URL',
  'DATABASE_POOL_SIZE',
  'KAFKA_TOPIC_PREFIX',
  'KAFKA_PARTITIONS',
  // platformServiceApp: the cards service's vaults on STORE_DRIVER=postgres (by default DATABASE_URL).
  'CARD_VAULT_DATABASE_URL',
  // runServiceApp (the services and the relay): /health and /metrics.
  'METRICS_PORT',
  // platformServiceApp: the simulator's way to the gateway.
  'GATEWAY_URL',
  // The service connection pool (libs/shared/transport/src/service-connections.ts).
  'SERVICE_CONNECTIONS',
  'SERVICE_CONNECTION_MAX_COMMANDS',
  'SERVICE_CONNECTION_MAX_AGE_MS',
];

/** The distributed stores (readDistributedConfig): every app of a distributed deployment is given them. */
export const DISTRIBUTED_STORE_VARIABLES: readonly string[] = [
  'EVENTSTORE_URL',
  'KAFKA_BROKERS',
  'MONGO_URL',
  'PERSONAL_DATA_MASTER_KEY',
];

/** The PostgreSQL + Kafka stores (readPostgresConfig): required of every app on STORE_DRIVER=postgres. */
export const POSTGRES_STORE_VARIABLES: readonly string[] = [
  'DATABASE_URL',
  'KAFKA_BROKERS',
  'PERSONAL_DATA_MASTER_KEY',
];

/** Read when set on STORE_DRIVER=postgres (readPostgresConfig; CARD_VAULT_DATABASE_URL by the cards service). */
const POSTGRES_STORE_OPTIONS: readonly string[] = [
  'PERSONAL_DATA_DATABASE_URL',
  'DATABASE_POOL_SIZE',
  'KAFKA_TOPIC_PREFIX',
  'KAFKA_PARTITIONS',
];

/** The drivers whose apps the table describes (StoreDriver of libs/shared/infrastructure). */
export type AppDriver = 'embedded' | 'postgres' | 'distributed';

export interface AppVariables {
  /**
   * Where the app listens and what it reaches, given by whatever starts it: the split launcher sets each from
   * the topology it plans, docker-compose.yml and the chart from theirs.
   */
  wiring: readonly string[];
  /** Wiring read on the embedded driver only (the stores under DATA_DIR): the split launcher sets it too. */
  embeddedWiring?: readonly string[];
  /** Settings a distributed deployment must give besides the wiring and the stores (the card vault's keys). */
  requires?: readonly string[];
  /** Read when set (the code has a default, or the installation decides). */
  may: readonly string[];
  /**
   * Keys the app makes under DATA_DIR/secrets on its first start when not given: the chart takes every one
   * from the Secret (replicas and pods whose disk is not kept must share them); compose gives them or keeps
   * the app's DATA_DIR on a named volume.
   */
  keys?: readonly string[];
  /** Makes links users open (PUBLIC_BASE_URL): set wherever the installation says where the gateway is. */
  links?: boolean;
}

const perEnvironment = (...names: string[]) =>
  names.flatMap((name) => [`${name}_SANDBOX`, `${name}_PRODUCTION`]);

const ANY_APP = ['LOG_LEVEL', 'KAFKA_CLIENT_ID', 'HOST'];
/** The gateway, the dashboard and every service: the driver, and every service's address. */
const PLATFORM_APP = {
  wiring: ['STORE_DRIVER', ...SERVICE_HOST_VARIABLES],
  may: [
    ...ANY_APP,
    ...SERVICE_PORT_VARIABLES,
    ...NON_SCHEMA_VARIABLES.filter((name) => name.startsWith('SERVICE_')),
  ],
};
/** A context service (runContextService): its /health port and its DATA_DIR (secrets, the embedded stores). */
const SERVICE_APP: AppVariables = {
  wiring: [...PLATFORM_APP.wiring, 'METRICS_PORT', 'DATA_DIR'],
  may: PLATFORM_APP.may,
};

/** What each app of PLATFORM_APPS reads. */
export const PLATFORM_APP_VARIABLES: Readonly<Record<string, AppVariables>> = {
  users: SERVICE_APP,
  kyc: { ...SERVICE_APP, keys: ['KYC_LINK_SECRET'], links: true },
  cards: {
    ...SERVICE_APP,
    // The distributed card vault refuses to start without every key (openMongoCardVault).
    requires: perEnvironment('CARD_VAULT_KEKS', 'CARD_VAULT_INDEX_KEY', 'CARD_VAULT_CVK', 'CARD_VAULT_PVK'),
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
      'AUTHORIZATION_HOLD_DECISION_TIMEOUT_MS',
    ],
    keys: ['AUTHORIZATION_DECISIONING_SECRETS_KEY'],
  },
  simulator: {
    // Its ISO 8583 server's port, which the issuer links to; the gateway its sandbox 3DS server posts to.
    wiring: [...SERVICE_APP.wiring, 'SIMULATOR_ISO_PORT', 'GATEWAY_URL'],
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
    may: [...SERVICE_APP.may, 'WEBHOOK_ALLOW_PRIVATE_URLS', 'WEBHOOK_BREAKER_RESET_TIMEOUT_MS'],
    keys: [...perEnvironment('WEBHOOK_SIGNING_KEY'), 'WEBHOOK_SECRETS_KEY'],
  },
  tokenization: SERVICE_APP,
  'three-ds': { ...SERVICE_APP, keys: perEnvironment('THREE_DS_AUTHENTICATION_VALUE_KEY'), links: true },
  gateway: {
    wiring: [...PLATFORM_APP.wiring, 'PORT'],
    embeddedWiring: ['DATA_DIR'],
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
    wiring: [...PLATFORM_APP.wiring, 'DASHBOARD_PORT'],
    // Its stores and staff credentials (DATA_DIR/staff-credentials.sqlite).
    embeddedWiring: ['DATA_DIR'],
    may: [...PLATFORM_APP.may, 'DASHBOARD_PUBLIC_URL', 'HTTP_HEADERS_TIMEOUT_MS', 'HTTP_REQUEST_TIMEOUT_MS'],
  },
  // A server driver's stores (apps/relay/src/main.ts: STORE_DRIVER, distributed by default), its /health port.
  relay: { wiring: ['METRICS_PORT'], may: [...ANY_APP, 'STORE_DRIVER'] },
};

/** A row of PLATFORM_APP_VARIABLES; throws for an app it does not have. */
export function appVariables(app: string): AppVariables {
  const row = PLATFORM_APP_VARIABLES[app];
  if (!row) throw new Error(`No app named ${app} (PLATFORM_APP_VARIABLES)`);
  return row;
}

/** What an app's wiring is on a driver: the embedded one adds its embeddedWiring. */
export const wiringOf = (app: string, driver: AppDriver): string[] => {
  const row = appVariables(app);
  return [...row.wiring, ...(driver === 'embedded' ? (row.embeddedWiring ?? []) : [])];
};

/** What every distributed deployment file gives the app: its wiring, the stores, its required settings. */
export const requiredVariables = (app: string): string[] => [
  ...new Set([
    ...wiringOf(app, 'distributed'),
    ...DISTRIBUTED_STORE_VARIABLES,
    ...(appVariables(app).requires ?? []),
  ]),
];

/** Every variable the app reads on a driver: its requirements, its options, its keys, PUBLIC_BASE_URL if it links. */
export function variablesReadBy(app: string, driver: AppDriver): Set<string> {
  const row = appVariables(app);
  return new Set([
    ...wiringOf(app, driver),
    // The embedded driver's stores are under DATA_DIR; their master key may be given.
    ...(driver === 'distributed'
      ? DISTRIBUTED_STORE_VARIABLES
      : driver === 'postgres'
        ? [
            ...POSTGRES_STORE_VARIABLES,
            ...POSTGRES_STORE_OPTIONS,
            ...(app === 'cards' ? ['CARD_VAULT_DATABASE_URL'] : []),
          ]
        : ['PERSONAL_DATA_MASTER_KEY']),
    ...(row.requires ?? []),
    ...row.may,
    ...(row.keys ?? []),
    ...(row.links ? ['PUBLIC_BASE_URL'] : []),
  ]);
}
