import type { SystemHealthView } from '@cip/backoffice/contract';
import { ENVIRONMENTS, type Environment } from '@cip/shared/contracts';
import type { Clock, PlatformMetrics } from '@cip/shared/runtime';

/**
 * The health page from what the platform already measures: the consumer lag gauge (`consumer_lag_events`,
 * set by the bus as groups progress), the /v1 access log's recent 5xx answers, and the webhook delivery
 * engine's queues (given by the runtime: the engine runs where the dispatcher does).
 */
export class SystemHealthService {
  constructor(
    private readonly metrics: PlatformMetrics,
    private readonly clock: Clock,
    private readonly webhookBacklog: (environment: Environment) => number,
  ) {}

  async health(): Promise<SystemHealthView> {
    const now = this.clock.now();
    const lag = await this.metrics.consumerLag.get();
    const consumers = lag.values
      .map(({ labels, value }) => ({
        scope: String(labels.store ?? '').replace(/^[a-z]+:/, ''),
        group: String(labels.group ?? ''),
        lagEvents: value,
      }))
      .sort((a, b) => a.scope.localeCompare(b.scope) || a.group.localeCompare(b.group));
    return {
      at: now.toISOString(),
      consumers,
      serverErrors: this.metrics.recentServerErrors.summary(now),
      webhookBacklog: ENVIRONMENTS.map((environment) => ({
        environment,
        pending: this.webhookBacklog(environment),
      })),
    };
  }
}
