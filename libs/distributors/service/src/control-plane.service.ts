import { DEFAULT_PROGRAM_AUTHORIZATION } from '@cip/authorizations/contract';
import {
  type ControlPlaneApi,
  type DistributorDetail,
  type DistributorKeyView,
  type DistributorSummary,
  type IssuedDistributorKey,
  type ProgramChanges,
  programUpdate,
  ProgramSettingsInvalid,
} from '@cip/distributors/contract';
import type { ApiKeyRecord, DistributorRecord } from '@cip/distributors/domain';
import { DomainError, type Environment } from '@cip/shared/contracts';
import { DEFAULT_THREE_DS_DEADLINE_SECONDS } from '@cip/three-ds/contract';
import type { DistributorsService, IssuedApiKey } from './distributors.service';

const summaryOf = (distributor: DistributorRecord): DistributorSummary => ({
  distributorId: distributor.distributorId,
  name: distributor.name,
  program: distributor.program,
  isDefault: distributor.isDefault,
  createdAt: distributor.createdAt,
});

/** A key as operators may see it (operator API and CLI): everything but its hash. */
export const keyView = (key: ApiKeyRecord): DistributorKeyView => ({
  keyId: key.keyId,
  environment: key.environment,
  last4: key.last4,
  label: key.label,
  status: key.status,
  createdAt: key.createdAt,
  revokedAt: key.revokedAt,
});

const detailOf = (distributor: DistributorRecord): DistributorDetail => ({
  ...summaryOf(distributor),
  program: {
    ...distributor.program,
    authorization: distributor.program.authorization ?? DEFAULT_PROGRAM_AUTHORIZATION,
    threeDs: distributor.program.threeDs ?? { challengeDeadlineSeconds: DEFAULT_THREE_DS_DEADLINE_SECONDS },
  },
  authorizationSettings: distributor.program.authorization ? 'configured' : 'defaults',
  keys: distributor.keys.map(keyView),
  updatedAt: distributor.updatedAt,
});

/** The API's field of a problem of the authorization settings (`fees.fx` is set by `feeFx`). */
const FIELD_OF: Record<string, string> = {
  'fees.fx': 'feeFx',
  'fees.atm': 'feeAtm',
  'fees.auth': 'feeAuth',
};

/** The program update, refused as `400 validation_error` naming each field when the result is not valid. */
function validUpdate(program: DistributorRecord['program'], changes: ProgramChanges) {
  try {
    return programUpdate(program, changes);
  } catch (error) {
    if (!(error instanceof ProgramSettingsInvalid)) throw error;
    throw new DomainError(
      'validation_error',
      `Invalid program settings: ${error.message}`,
      error.problems.map((p) => ({
        field: FIELD_OF[p.field] ?? p.field,
        message: `${p.field} ${p.message}`,
      })),
    );
  }
}

/** The control plane as operators use it through the backoffice (`CONTROL_PLANE_API`). */
export class ControlPlaneService implements ControlPlaneApi {
  constructor(private readonly distributors: DistributorsService) {}

  private get directory() {
    return this.distributors.directory;
  }

  private async existing(distributorId: string): Promise<DistributorRecord> {
    await this.directory.catchUp();
    const distributor = this.directory.get(distributorId);
    if (!distributor) throw new DomainError('not_found', `Distributor ${distributorId} was not found`);
    return distributor;
  }

  private issued(issued: IssuedApiKey): IssuedDistributorKey {
    const key = this.directory.get(issued.distributorId)?.keys.find((k) => k.keyId === issued.keyId);
    if (!key) throw new Error(`Key ${issued.keyId} was issued but is not in the directory`);
    return { key: keyView(key), distributorId: issued.distributorId, apiKey: issued.apiKey };
  }

  async listDistributors(): Promise<DistributorSummary[]> {
    await this.directory.catchUp();
    return this.directory
      .list()
      .sort((a, b) => a.createdAt.localeCompare(b.createdAt))
      .map(summaryOf);
  }

  async getDistributor(distributorId: string): Promise<DistributorDetail> {
    return detailOf(await this.existing(distributorId));
  }

  async createDistributor(input: { name: string; program?: ProgramChanges }): Promise<DistributorDetail> {
    const defaults = { allowedCountries: [], b2b: false, prepaid: false, kycImportEnabled: false };
    const program = validUpdate(defaults, input.program ?? {});
    const created = await this.distributors.createDistributor({ name: input.name, program });
    return detailOf(created);
  }

  async configureProgram(distributorId: string, changes: ProgramChanges): Promise<DistributorDetail> {
    const current = await this.existing(distributorId);
    const update = validUpdate(current.program, changes);
    if (Object.keys(update).length === 0) {
      throw new DomainError('validation_error', 'Nothing to configure: give at least one setting');
    }
    return detailOf(await this.distributors.configureProgram(distributorId, update));
  }

  async issueKey(
    distributorId: string,
    environment: Environment,
    label: string | null = null,
  ): Promise<IssuedDistributorKey> {
    await this.existing(distributorId);
    return this.issued(await this.distributors.issueKey(distributorId, environment, label));
  }

  async rollKey(keyId: string): Promise<IssuedDistributorKey> {
    await this.directory.catchUp();
    return this.issued(await this.distributors.rollKey(keyId));
  }

  async revokeKey(keyId: string): Promise<DistributorKeyView> {
    await this.directory.catchUp();
    await this.distributors.deleteKey(keyId);
    const owner = await this.ownerOfKey(keyId);
    const key = owner ? this.directory.get(owner)?.keys.find((k) => k.keyId === keyId) : undefined;
    if (!key) throw new Error(`Key ${keyId} was revoked but is not in the directory`);
    return keyView(key);
  }

  async ownerOfKey(keyId: string): Promise<string | null> {
    await this.directory.catchUp();
    return this.directory.list().find((d) => d.keys.some((k) => k.keyId === keyId))?.distributorId ?? null;
  }
}
