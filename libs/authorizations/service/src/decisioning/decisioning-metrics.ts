import { Counter, Histogram, Registry } from 'prom-client';

/** What became of one call to a distributor's decisioning endpoint (the outcomes counter's label). */
export type DecisioningCallOutcome =
  'approved' | 'declined' | 'partial' | 'timeout' | 'error' | 'circuit_open' | 'late_ignored';

/** Real-time decisioning metrics (ARCHITECTURE.md, "Observability"). */
export class DecisioningMetrics {
  readonly outcomes: Counter<'outcome'>;
  readonly duration: Histogram<'outcome'>;

  constructor(registry: Registry) {
    this.outcomes = new Counter({
      name: 'authorization_decisioning_outcomes_total',
      help: "Calls to distributors' decisioning endpoints: approved, declined, partial, timeout, error, circuit_open, late_ignored",
      labelNames: ['outcome'] as const,
      registers: [registry],
    });
    this.duration = new Histogram({
      name: 'authorization_decisioning_duration_seconds',
      help: "Time an authorization waited for the distributor's decision (capped by its timeoutMs)",
      labelNames: ['outcome'] as const,
      buckets: [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 0.75, 1, 1.25, 1.5, 2],
      registers: [registry],
    });
  }
}
