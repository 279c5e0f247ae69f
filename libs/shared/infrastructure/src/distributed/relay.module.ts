import { Inject, Injectable, Module, OnApplicationBootstrap } from '@nestjs/common';
import { type Logger, METRICS, PlatformMetrics } from '@cip/shared/runtime';
import { Gauge } from 'prom-client';
import { Readiness } from '../health/readiness';
import { type Infrastructure, INFRASTRUCTURE, STORE_SCOPES } from '../infrastructure';
import { LOGGER } from '../infrastructure.module';
import type { ServerInfrastructure } from './kafka-transport';

/** The lag /health reports is counted up to this many events (a read of the log past the relay's position). */
export const RELAY_LAG_CAP = 1000;

const relaying = (infrastructure: Infrastructure): infrastructure is ServerInfrastructure =>
  typeof (infrastructure as Partial<ServerInfrastructure>).startRelays === 'function';

/**
 * Starts the relay loops of the process's infrastructure (one per store scope) once every module is up, and
 * reports them: `relay:<scope>` on /health (ready while running, not stuck retrying; its state, retries,
 * position and lag in events) and the `relay_position` gauge on /metrics. They stop with the infrastructure
 * (`InfrastructureModule`): the batch in flight is produced and checkpointed, or resent after a restart.
 */
@Injectable()
class RelayLoops implements OnApplicationBootstrap {
  constructor(
    @Inject(INFRASTRUCTURE) private readonly infrastructure: Infrastructure,
    @Inject(Readiness) private readonly readiness: Readiness,
    @Inject(METRICS) private readonly metrics: PlatformMetrics,
    @Inject(LOGGER) private readonly logger: Logger,
  ) {}

  async onApplicationBootstrap(): Promise<void> {
    if (!relaying(this.infrastructure)) {
      throw new Error(
        `The relay runs on a server driver only, postgres or distributed (got ${this.infrastructure.driver})`,
      );
    }
    const relays = await this.infrastructure.startRelays();
    // startRelays starts one relay per scope, in STORE_SCOPES order.
    const scopes = STORE_SCOPES.slice(0, relays.length);
    new Gauge({
      name: 'relay_position',
      help: 'Global position of the event store log produced to Kafka and checkpointed, by scope',
      labelNames: ['scope'] as const,
      registers: [this.metrics.registry],
      collect() {
        relays.forEach((relay, i) => this.set({ scope: scopes[i] }, relay.position));
      },
    });
    relays.forEach((relay, i) =>
      this.readiness.register(`relay:${scopes[i]}`, async () => {
        const status = relay.status();
        return {
          ready: status.state === 'running',
          ...status,
          lagEvents: await relay.backlog(RELAY_LAG_CAP),
        };
      }),
    );
    this.logger.info({ scopes }, 'relays started');
  }
}

/**
 * The relay of the distributed runtime (apps/relay): tails each scope's event store log and produces it to
 * that scope's Kafka topics. Needs an `InfrastructureModule` on the distributed stores.
 */
@Module({ providers: [RelayLoops] })
export class RelayModule {}
