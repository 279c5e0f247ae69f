import type { ControlPlaneApi, DistributorSummary } from '@cip/distributors/contract';
import type { DistributorRecord } from '@cip/distributors/domain';
import type { DistributorsService } from './distributors.service';

const summaryOf = (distributor: DistributorRecord): DistributorSummary => ({
  distributorId: distributor.distributorId,
  name: distributor.name,
  program: distributor.program,
  isDefault: distributor.isDefault,
  createdAt: distributor.createdAt,
});

/** The control plane as operators use it through the backoffice (`CONTROL_PLANE_API`). */
export class ControlPlaneService implements ControlPlaneApi {
  constructor(private readonly distributors: DistributorsService) {}

  async listDistributors(): Promise<DistributorSummary[]> {
    await this.distributors.directory.catchUp();
    return this.distributors.directory
      .list()
      .sort((a, b) => a.createdAt.localeCompare(b.createdAt))
      .map(summaryOf);
  }
}
