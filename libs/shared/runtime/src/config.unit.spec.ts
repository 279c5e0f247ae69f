import { SANDBOX_ZPK } from '@cip/shared/iso8583';
import {
  ConfigError,
  readLogLevel,
  readPlatformConfig,
  readSimulatorConfig,
  readWalLimitBytes,
} from './config';

const problemsOf = (env: NodeJS.ProcessEnv): string[] => {
  try {
    readPlatformConfig(env);
  } catch (error) {
    if (error instanceof ConfigError) return error.problems;
    throw error;
  }
  throw new Error('the configuration was accepted');
};

describe('the platform configuration, read from the environment', () => {
  it('starts from documented defaults, an empty variable counting as unset', () => {
    const config = readPlatformConfig({ PORT: '', LOG_LEVEL: '' });
    expect(config).toMatchObject({
      port: 3000,
      host: '0.0.0.0',
      logLevel: 'info',
      rateLimit: { ratePerSecond: 100, burst: 200 },
      httpTimeouts: { headersMs: 10_000, requestMs: 30_000 },
      webhooks: { allowPrivateUrls: false, breakerResetTimeoutMs: 30_000 },
      chains: { sandbox: undefined, production: undefined },
    });
  });

  it('takes valid values', () => {
    const config = readPlatformConfig({
      PORT: '8080',
      LOG_LEVEL: 'debug',
      WEBHOOK_ALLOW_PRIVATE_URLS: 'true',
      WEBHOOK_BREAKER_RESET_TIMEOUT_MS: '60000',
      PUBLIC_BASE_URL: 'https://cards.example.com',
      CHAIN_RPC_URL_SANDBOX: 'http://127.0.0.1:8545',
      CHAIN_ID_SANDBOX: '31337',
      USDC_CONTRACT_ADDRESS_SANDBOX: `0x${'ab'.repeat(20)}`,
    });
    expect(config).toMatchObject({
      port: 8080,
      logLevel: 'debug',
      publicBaseUrl: 'https://cards.example.com',
      webhooks: { allowPrivateUrls: true, breakerResetTimeoutMs: 60_000 },
      chains: { sandbox: { chainId: 31337, confirmations: 12, pollIntervalMs: 4000 } },
    });
  });

  it('takes the keys replicas of a service share: the 3DS authentication value keys, the decisioning key', () => {
    const key = Buffer.alloc(32, 1).toString('base64');
    expect(readPlatformConfig({})).toMatchObject({
      threeDsAuthenticationValueKeys: { sandbox: undefined, production: undefined },
      decisioningSecretsKey: undefined,
    });
    expect(
      readPlatformConfig({
        THREE_DS_AUTHENTICATION_VALUE_KEY_SANDBOX: key,
        AUTHORIZATION_DECISIONING_SECRETS_KEY: key,
      }),
    ).toMatchObject({ threeDsAuthenticationValueKeys: { sandbox: key }, decisioningSecretsKey: key });
  });

  it('refuses a wrong value with a message naming the variable and the value', () => {
    expect(problemsOf({ LOG_LEVEL: 'verbose' })).toEqual([
      expect.stringMatching(
        /^LOG_LEVEL: must be one of fatal, error, warn, info, debug, trace, silent \(got "verbose"\)$/,
      ),
    ]);
    expect(problemsOf({ WEBHOOK_ALLOW_PRIVATE_URLS: '1' })).toEqual([
      'WEBHOOK_ALLOW_PRIVATE_URLS: must be true or false (got "1")',
    ]);
  });

  it('lists every wrong variable at once', () => {
    const problems = problemsOf({
      PORT: '70000',
      RATE_LIMIT_PER_SECOND: 'ten',
      PUBLIC_BASE_URL: 'cards.example.com',
      BOOTSTRAP_SANDBOX_API_KEY: 'sk_live_x',
    });
    expect(problems.map((problem) => problem.split(':')[0]).sort()).toEqual([
      'BOOTSTRAP_SANDBOX_API_KEY',
      'PORT',
      'PUBLIC_BASE_URL',
      'RATE_LIMIT_PER_SECOND',
    ]);
  });

  it('never echoes the value of a secret it refuses', () => {
    const [problem] = problemsOf({ HOT_WALLET_PRIVATE_KEY_SANDBOX: 'not-hex-but-still-secret' });
    expect(problem).toBe(
      'HOT_WALLET_PRIVATE_KEY_SANDBOX: must be a 0x-prefixed 32-byte hex key (value not shown)',
    );
  });

  it('needs the chain id and token of a chain whose RPC url is set', () => {
    expect(problemsOf({ CHAIN_RPC_URL_PRODUCTION: 'https://rpc.example.com' })).toEqual([
      'CHAIN_ID_PRODUCTION: must be set when CHAIN_RPC_URL_PRODUCTION is',
      'USDC_CONTRACT_ADDRESS_PRODUCTION: must be set when CHAIN_RPC_URL_PRODUCTION is',
    ]);
  });

  it('reads the WAL limit in MiB, 1 GiB unless set, and refuses one too small to hold a checkpoint pass', () => {
    expect(readPlatformConfig({}).walLimitBytes).toBe(1024 * 1024 * 1024);
    expect(readPlatformConfig({ SQLITE_WAL_LIMIT_MB: '64' }).walLimitBytes).toBe(64 * 1024 * 1024);
    expect(readWalLimitBytes({ SQLITE_WAL_LIMIT_MB: '256' })).toBe(256 * 1024 * 1024);
    expect(problemsOf({ SQLITE_WAL_LIMIT_MB: '8' })).toEqual([
      expect.stringMatching(/^SQLITE_WAL_LIMIT_MB: .*\(got "8"\)$/),
    ]);
  });

  it('checks LOG_LEVEL alone for the apps that read nothing else', () => {
    expect(readLogLevel({ LOG_LEVEL: 'warn' })).toBe('warn');
    expect(() => readLogLevel({ LOG_LEVEL: 'loud' })).toThrow(/LOG_LEVEL/);
  });

  describe('cards', () => {
    const key = Buffer.alloc(32, 7).toString('base64');
    const ring = JSON.stringify({ active: 'kek-2', keys: { 'kek-1': key, 'kek-2': key } });

    it('issues from no configured BIN by default (the sandbox then uses its test BIN, production none), for 36 months', () => {
      expect(readPlatformConfig({}).cards).toEqual({
        sandbox: { bin: undefined, lifetimeMonths: 36, vaultKeys: {} },
        production: { bin: undefined, lifetimeMonths: 36, vaultKeys: {} },
      });
    });

    it("takes each environment's BIN, card lifetime and vault keys", () => {
      const config = readPlatformConfig({
        CARD_BIN_PRODUCTION: '45717360',
        CARD_LIFETIME_MONTHS_PRODUCTION: '48',
        CARD_VAULT_KEKS_PRODUCTION: ring,
        CARD_VAULT_INDEX_KEY_PRODUCTION: key,
        CARD_VAULT_CVK_PRODUCTION: '0123456789abcdef0123456789ABCDEF',
        CARD_VAULT_PVK_PRODUCTION: 'fedcba9876543210fedcba9876543210',
      });
      expect(config.cards.production).toEqual({
        bin: '45717360',
        lifetimeMonths: 48,
        vaultKeys: {
          keks: ring,
          indexKey: key,
          cvk: '0123456789abcdef0123456789ABCDEF',
          pvk: 'fedcba9876543210fedcba9876543210',
        },
      });
      expect(config.cards.sandbox.bin).toBeUndefined();
    });

    it('refuses a malformed BIN or lifetime naming the variable, and a malformed vault key without echoing it', () => {
      const problems = problemsOf({
        CARD_BIN_PRODUCTION: '4571-73',
        CARD_LIFETIME_MONTHS_SANDBOX: '0',
        CARD_VAULT_KEKS_SANDBOX: '{"active": "kek-9", "keys": {"kek-1": "c2hvcnQ="}}',
        CARD_VAULT_INDEX_KEY_SANDBOX: 'c2hvcnQ=',
        CARD_VAULT_CVK_PRODUCTION: 'not-hex-at-all-not-hex-at-all-xx',
      });
      expect(problems.map((problem) => problem.split(':')[0]).sort()).toEqual([
        'CARD_BIN_PRODUCTION',
        'CARD_LIFETIME_MONTHS_SANDBOX',
        'CARD_VAULT_CVK_PRODUCTION',
        'CARD_VAULT_INDEX_KEY_SANDBOX',
        'CARD_VAULT_KEKS_SANDBOX',
      ]);
      expect(problems.find((p) => p.startsWith('CARD_BIN_PRODUCTION'))).toContain('got "4571-73"');
      for (const secret of problems.filter((p) => p.startsWith('CARD_VAULT'))) {
        expect(secret).toContain('value not shown');
        expect(secret).not.toMatch(/c2hvcnQ|not-hex|kek-9/);
      }
    });
  });

  describe('the card network link', () => {
    it('has none unless CARD_NETWORK_ISO_ADDRESS is set, and takes host:port (an IPv6 host in brackets)', () => {
      expect(readPlatformConfig({}).cardNetwork).toBeUndefined();
      expect(readPlatformConfig({ CARD_NETWORK_ISO_ADDRESS: 'simulator:8583' }).cardNetwork).toEqual({
        host: 'simulator',
        port: 8583,
      });
      expect(readPlatformConfig({ CARD_NETWORK_ISO_ADDRESS: '[::1]:9000' }).cardNetwork).toEqual({
        host: '::1',
        port: 9000,
      });
    });

    it('refuses an address without a port, or a port out of range, naming the variable', () => {
      for (const address of ['simulator', 'simulator:0', 'simulator:70000', 'a:b:1', ':8583']) {
        expect(problemsOf({ CARD_NETWORK_ISO_ADDRESS: address })).toEqual([
          expect.stringMatching(/^CARD_NETWORK_ISO_ADDRESS: /),
        ]);
      }
    });
  });

  describe('the zone PIN key and the sandbox card network simulator', () => {
    it('defaults to the public sandbox ZPK and the documented simulator settings, on loopback and any port', () => {
      const config = readPlatformConfig({});
      expect(config.cardNetworkZpk).toBe(SANDBOX_ZPK);
      expect(config.simulator).toEqual({
        isoPort: 0,
        isoHost: '127.0.0.1',
        standInTimeoutMs: 3_000,
        standInLimitMinor: 10_000,
        acquirerId: '400001',
      });
    });

    it('takes every variable, for the platform and for the standalone simulator app with its own defaults', () => {
      const env = {
        CARD_NETWORK_ZPK: 'A'.repeat(48),
        SIMULATOR_ISO_PORT: '9583',
        SIMULATOR_ISO_HOST: '10.0.0.2',
        SIMULATOR_STAND_IN_TIMEOUT_MS: '500',
        SIMULATOR_STAND_IN_LIMIT_MINOR: '0',
        SIMULATOR_ACQUIRER_ID: '12345678',
      };
      const simulator = {
        isoPort: 9583,
        isoHost: '10.0.0.2',
        standInTimeoutMs: 500,
        standInLimitMinor: 0,
        acquirerId: '12345678',
      };
      expect(readPlatformConfig(env)).toMatchObject({ cardNetworkZpk: 'A'.repeat(48), simulator });
      expect(readSimulatorConfig(env, { isoPort: 8583, isoHost: '0.0.0.0' })).toEqual({
        ...simulator,
        zpkHex: 'A'.repeat(48),
      });
      expect(readSimulatorConfig({}, { isoPort: 8583, isoHost: '0.0.0.0' })).toMatchObject({
        isoPort: 8583,
        isoHost: '0.0.0.0',
        zpkHex: SANDBOX_ZPK,
      });
    });

    it('refuses wrong values naming each variable, never echoing the ZPK', () => {
      const problems = problemsOf({
        CARD_NETWORK_ZPK: 'not-a-key-0123456789',
        SIMULATOR_ISO_PORT: '70000',
        SIMULATOR_STAND_IN_TIMEOUT_MS: '0',
        SIMULATOR_ACQUIRER_ID: 'ACQ1',
      });
      expect(problems.map((problem) => problem.split(':')[0]).sort()).toEqual([
        'CARD_NETWORK_ZPK',
        'SIMULATOR_ACQUIRER_ID',
        'SIMULATOR_ISO_PORT',
        'SIMULATOR_STAND_IN_TIMEOUT_MS',
      ]);
      const zpk = problems.find((problem) => problem.startsWith('CARD_NETWORK_ZPK')) as string;
      expect(zpk).toContain('value not shown');
      expect(zpk).not.toContain('not-a-key');
      expect(() =>
        readSimulatorConfig({ CARD_NETWORK_ZPK: '0123' }, { isoPort: 8583, isoHost: '0.0.0.0' }),
      ).toThrow(ConfigError);
    });
  });

  describe('settlement', () => {
    it('has no settlement address and an hourly schedule by default', () => {
      expect(readPlatformConfig({}).settlement).toEqual({
        addresses: { sandbox: undefined, production: undefined },
        intervalMs: 3_600_000,
      });
    });

    it('takes an address in lower case or with a valid checksum, and reads it checksummed', () => {
      const config = readPlatformConfig({
        SETTLEMENT_ADDRESS_SANDBOX: '0x38651ed2fbc13930d11fd4b1d88ddb974908b51f',
        SETTLEMENT_ADDRESS_PRODUCTION: '0x38651Ed2FBc13930D11fd4b1d88DDB974908B51F',
        SETTLEMENT_INTERVAL_MS: '0',
      });
      expect(config.settlement).toEqual({
        addresses: {
          sandbox: '0x38651Ed2FBc13930D11fd4b1d88DDB974908B51F',
          production: '0x38651Ed2FBc13930D11fd4b1d88DDB974908B51F',
        },
        intervalMs: 0,
      });
    });

    it('refuses an address with a wrong checksum or of the wrong length, naming the variable', () => {
      const problems = problemsOf({
        SETTLEMENT_ADDRESS_SANDBOX: '0x38651Ed2FBc13930D11fd4b1d88DDB974908b51F',
        SETTLEMENT_ADDRESS_PRODUCTION: '0x1234',
        SETTLEMENT_INTERVAL_MS: '-1',
      });
      expect(problems.map((problem) => problem.split(':')[0]).sort()).toEqual([
        'SETTLEMENT_ADDRESS_PRODUCTION',
        'SETTLEMENT_ADDRESS_SANDBOX',
        'SETTLEMENT_INTERVAL_MS',
      ]);
    });
  });
});
