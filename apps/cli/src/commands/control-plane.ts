import { DistributorRecord } from '@cip/distributors/domain';
import { DistributorDirectory, DistributorsService } from '@cip/distributors/service';
import { DomainError } from '@cip/shared/contracts';
import { systemClock } from '@cip/shared/runtime';
import type { CommandContext } from '../command';

/**
 * The control plane's operator commands over the data directory's control store. The directory is folded
 * from the log first: commands on keys look their owner up in it.
 */
export async function openControlPlane(
  context: CommandContext,
): Promise<{ service: DistributorsService; directory: DistributorDirectory }> {
  const store = context.infrastructure().scope('control').eventStore;
  const directory = new DistributorDirectory(store);
  await directory.catchUp();
  return { service: new DistributorsService(store, directory, systemClock), directory };
}

export function existingDistributor(
  directory: DistributorDirectory,
  distributorId: string,
): DistributorRecord {
  const distributor = directory.get(distributorId);
  if (!distributor) throw new DomainError('not_found', `Distributor ${distributorId} was not found`);
  return distributor;
}
