import { DomainError, Environment } from '@cip/shared/contracts';
import { EventStore, handleCommand } from '@cip/shared/eventing';
import { Clock, deterministicUuid, newId } from '@cip/shared/runtime';
import {
  API_KEY_PREFIX,
  DEFAULT_ALLOWED_COUNTRIES,
  distributorDecider,
  DistributorCommand,
  DistributorRecord,
  DistributorState,
  NewApiKey,
  ProgramConfig,
} from '@cip/distributors/domain';
import { randomBytes } from 'node:crypto';
import { DistributorDirectory, hashApiKey } from './distributor-directory';

const DEFAULT_PROGRAM: ProgramConfig = {
  allowedCountries: DEFAULT_ALLOWED_COUNTRIES,
  b2b: false,
  prepaid: false,
  kycImportEnabled: false,
};

const BASE62 = '0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz';

/** 32 random bytes as base62 (about 190 bits of entropy once rejection sampling is accounted for). */
function randomSecret(length = 40): string {
  let out = '';
  while (out.length < length) {
    for (const byte of randomBytes(64)) {
      if (byte < 248 && out.length < length) out += BASE62[byte % 62];
    }
  }
  return out;
}

export const keyIdOf = (keyHash: string) => `key-${keyHash.slice(0, 20)}`;

/**
 * The id of the default distributor a deployment creates on its first start: the same in every process, so
 * that gateway replicas starting at once all append to one stream, and the event store's `no_stream` check
 * lets exactly one of them create it. (Deployments bootstrapped before it keep their default's own id.)
 */
export const DEFAULT_DISTRIBUTOR_ID = `dst-${deterministicUuid('cip', 'default-distributor')}`;

/** An API key as shown once, at creation. */
export interface IssuedApiKey {
  keyId: string;
  distributorId: string;
  environment: Environment;
  apiKey: string;
}

/** The banner lines that show a first sandbox key once to the person at the terminal (npm start, the split gateway). */
export const firstSandboxKeyLines = (key: IssuedApiKey): string[] => [
  `  sandbox API key  ${key.apiKey}`,
  '                   (shown once: keep it; create more with `npm run cli -- keys create`)',
];

export function environmentOfKey(apiKey: string): Environment | null {
  if (apiKey.startsWith(API_KEY_PREFIX.sandbox)) return 'sandbox';
  if (apiKey.startsWith(API_KEY_PREFIX.production)) return 'production';
  return null;
}

/**
 * Operator commands of the control plane: distributors, their program configuration, and API keys
 * (create, roll, delete). Keys are generated here, returned once, and stored only as SHA-256 hashes.
 */
export class DistributorsService {
  constructor(
    private readonly store: EventStore,
    readonly directory: DistributorDirectory,
    private readonly clock: Clock,
  ) {}

  private context() {
    return { occurredAt: this.clock.now().toISOString(), correlationId: 'operator' };
  }

  /** Runs a command on a distributor's stream, then lets the directory see it before the caller goes on. */
  private async execute(
    distributorId: string,
    command: DistributorCommand | ((state: DistributorState) => DistributorCommand),
  ) {
    const result = await handleCommand(
      this.store,
      distributorDecider,
      distributorId,
      command,
      this.context(),
    );
    await this.directory.catchUp();
    return result;
  }

  async createDistributor(input: {
    name: string;
    program?: Partial<ProgramConfig>;
    isDefault?: boolean;
    distributorId?: string;
  }): Promise<DistributorRecord> {
    const distributorId = input.distributorId ?? newId('dst');
    const program: ProgramConfig = { ...DEFAULT_PROGRAM, ...input.program };
    const result = await this.execute(distributorId, {
      type: 'CreateDistributor',
      data: {
        distributorId,
        name: input.name,
        program,
        isDefault: input.isDefault ?? false,
        now: this.context().occurredAt,
      },
    });
    return result.state as DistributorRecord;
  }

  async configureProgram(distributorId: string, changes: Partial<ProgramConfig>): Promise<DistributorRecord> {
    const result = await this.execute(distributorId, (state) => {
      if (state.status === 'absent')
        throw new DomainError('not_found', `Distributor ${distributorId} was not found`);
      return {
        type: 'ConfigureProgram' as const,
        data: { program: { ...state.program, ...changes }, now: this.context().occurredAt },
      };
    });
    return result.state as DistributorRecord;
  }

  private newKey(
    environment: Environment,
    label: string | null,
    apiKey = API_KEY_PREFIX[environment] + randomSecret(),
  ) {
    const keyHash = hashApiKey(apiKey);
    const key: NewApiKey = { keyId: keyIdOf(keyHash), environment, keyHash, last4: apiKey.slice(-4), label };
    return { apiKey, key };
  }

  async issueKey(
    distributorId: string,
    environment: Environment,
    label: string | null = null,
  ): Promise<IssuedApiKey> {
    const { apiKey, key } = this.newKey(environment, label);
    await this.execute(distributorId, { type: 'IssueApiKey', data: { key, now: this.context().occurredAt } });
    return { keyId: key.keyId, distributorId, environment, apiKey };
  }

  /** Registers a key chosen by the deployment (BOOTSTRAP_*_API_KEY); registering it again changes nothing. */
  async registerKey(
    distributorId: string,
    apiKey: string,
    label: string,
  ): Promise<{ keyId: string; created: boolean }> {
    const environment = environmentOfKey(apiKey);
    if (!environment) {
      throw new DomainError(
        'validation_error',
        `An API key must start with ${API_KEY_PREFIX.sandbox} or ${API_KEY_PREFIX.production}`,
      );
    }
    if (apiKey.length < API_KEY_PREFIX[environment].length + 24) {
      throw new DomainError('validation_error', 'An API key needs at least 24 characters after its prefix');
    }
    const { key } = this.newKey(environment, label, apiKey);
    const result = await this.execute(distributorId, {
      type: 'IssueApiKey',
      data: { key, now: this.context().occurredAt },
    });
    return { keyId: key.keyId, created: result.events.length > 0 };
  }

  async rollKey(keyId: string): Promise<IssuedApiKey> {
    const owner = this.ownerOf(keyId);
    const environment = owner.keys.find((k) => k.keyId === keyId)?.environment ?? 'sandbox';
    const { apiKey, key } = this.newKey(
      environment,
      owner.keys.find((k) => k.keyId === keyId)?.label ?? null,
    );
    await this.execute(owner.distributorId, {
      type: 'RollApiKey',
      data: { keyId, replacement: key, now: this.context().occurredAt },
    });
    return { keyId: key.keyId, distributorId: owner.distributorId, environment, apiKey };
  }

  async deleteKey(keyId: string): Promise<void> {
    const owner = this.ownerOf(keyId);
    await this.execute(owner.distributorId, {
      type: 'DeleteApiKey',
      data: { keyId, now: this.context().occurredAt },
    });
  }

  /**
   * On every start: makes sure a default distributor exists (creating it, with a sandbox key shown once,
   * on the very first start) and registers the deployment's bootstrap keys for it. Safe when several
   * replicas start at once: the creation lands on one deterministic stream, so only the replica whose
   * append created it issues the first sandbox key; the others find it there (`handleCommand` re-reads the
   * stream after the conflict and the creation decides nothing) and register the bootstrap keys on it,
   * which the key's hash makes idempotent.
   */
  async bootstrap(options: { sandboxKey?: string; productionKey?: string }): Promise<{
    distributor: DistributorRecord;
    firstSandboxKey: IssuedApiKey | null;
    registered: { keyId: string; environment: Environment; created: boolean }[];
  }> {
    await this.directory.catchUp();
    let distributor = this.directory.findDefault();
    let firstSandboxKey: IssuedApiKey | null = null;
    if (!distributor) {
      // The default distributor has every program feature on, so a newcomer can try the whole API.
      const created = await this.execute(DEFAULT_DISTRIBUTOR_ID, {
        type: 'CreateDistributor',
        data: {
          distributorId: DEFAULT_DISTRIBUTOR_ID,
          name: 'Default distributor',
          program: { ...DEFAULT_PROGRAM, b2b: true, prepaid: true, kycImportEnabled: true },
          isDefault: true,
          now: this.context().occurredAt,
        },
      });
      distributor = created.state as DistributorRecord;
      if (created.events.length > 0 && !options.sandboxKey)
        firstSandboxKey = await this.issueKey(distributor.distributorId, 'sandbox', 'first start');
    }
    const registered = [];
    for (const [environment, apiKey] of [
      ['sandbox', options.sandboxKey],
      ['production', options.productionKey],
    ] as const) {
      if (!apiKey) continue;
      if (environmentOfKey(apiKey) !== environment) {
        throw new DomainError(
          'validation_error',
          `BOOTSTRAP_${environment.toUpperCase()}_API_KEY must start with ${API_KEY_PREFIX[environment]}`,
        );
      }
      const result = await this.registerKey(distributor.distributorId, apiKey, `bootstrap ${environment}`);
      registered.push({ ...result, environment });
    }
    return {
      distributor: this.directory.get(distributor.distributorId) ?? distributor,
      firstSandboxKey,
      registered,
    };
  }

  private ownerOf(keyId: string): DistributorRecord {
    const owner = this.directory.list().find((d) => d.keys.some((k) => k.keyId === keyId));
    if (!owner) throw new DomainError('not_found', `API key ${keyId} was not found`);
    return owner;
  }
}
