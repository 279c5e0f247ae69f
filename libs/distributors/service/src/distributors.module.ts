import { Global, Inject, Module, OnApplicationShutdown, OnModuleInit } from '@nestjs/common';
import { CONTROL_PLANE_API, PROGRAM_DIRECTORY, ProgramDirectory } from '@cip/distributors/contract';
import { CLOCK, Clock } from '@cip/shared/runtime';
import { Infrastructure, INFRASTRUCTURE } from '@cip/shared/infrastructure';
import { ControlPlaneService } from './control-plane.service';
import { DistributorDirectory } from './distributor-directory';
import { DistributorsService } from './distributors.service';

/** The control plane: distributors, programs and API keys, in the control store. */
@Global()
@Module({
  providers: [
    {
      provide: DistributorDirectory,
      inject: [INFRASTRUCTURE],
      useFactory: (infrastructure: Infrastructure) =>
        new DistributorDirectory(infrastructure.scope('control').eventStore, {
          readTailOnEachAuthentication: infrastructure.driver === 'embedded',
        }),
    },
    {
      provide: DistributorsService,
      inject: [INFRASTRUCTURE, DistributorDirectory, CLOCK],
      useFactory: (infrastructure: Infrastructure, directory: DistributorDirectory, clock: Clock) =>
        new DistributorsService(infrastructure.scope('control').eventStore, directory, clock),
    },
    {
      provide: PROGRAM_DIRECTORY,
      inject: [DistributorDirectory],
      useFactory: (directory: DistributorDirectory): ProgramDirectory => ({
        programOf: (distributorId) => directory.get(distributorId)?.program ?? null,
        catchUp: () => directory.catchUp(),
      }),
    },
    {
      provide: CONTROL_PLANE_API,
      inject: [DistributorsService],
      useFactory: (service: DistributorsService) => new ControlPlaneService(service),
    },
  ],
  exports: [DistributorDirectory, DistributorsService, PROGRAM_DIRECTORY, CONTROL_PLANE_API],
})
export class DistributorsModule implements OnModuleInit, OnApplicationShutdown {
  constructor(@Inject(DistributorDirectory) private readonly directory: DistributorDirectory) {}

  async onModuleInit(): Promise<void> {
    await this.directory.start();
  }

  async onApplicationShutdown(): Promise<void> {
    await this.directory.stop();
  }
}
