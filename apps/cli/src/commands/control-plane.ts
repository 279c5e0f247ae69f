import { DistributorRecord } from '@cip/distributors/domain';
import { DistributorDirectory, DistributorsService } from '@cip/distributors/service';
import { type Caller, DomainError, type Environment } from '@cip/shared/contracts';
import { newId, systemClock } from '@cip/shared/runtime';
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

/** The caller of an operator command acting for a distributor: a fresh request id and its current program. */
export function operatorCaller(
  directory: DistributorDirectory,
  distributorId: string,
  environment: Environment,
): Caller {
  return {
    distributorId,
    environment,
    requestId: newId('cli'),
    program: existingDistributor(directory, distributorId).program,
  };
}
