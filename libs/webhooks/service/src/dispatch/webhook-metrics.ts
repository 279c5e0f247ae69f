import { Counter, Gauge, Histogram, Registry } from 'prom-client';

/** Webhook delivery metrics (ARCHITECTURE.md, "Observability": deliveries by result, latency). */
export class WebhookMetrics {
  readonly deliveries: Counter<'result'>;
  readonly attemptDuration: Histogram;
  readonly eventToDelivery: Histogram;
  readonly retryClock: Gauge;

  constructor(registry: Registry) {
    this.deliveries = new Counter({
      name: 'webhook_deliveries_total',
      help: 'Webhook delivery outcomes: succeeded, failed_attempt (retried), gave_up, gone (410), cancelled, circuit_open',
      labelNames: ['result'] as const,
      registers: [registry],
    });
    this.attemptDuration = new Histogram({
      name: 'webhook_delivery_attempt_duration_seconds',
      help: 'Latency of one HTTP delivery attempt to a subscriber endpoint',
      buckets: [0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10],
      registers: [registry],
    });
    this.eventToDelivery = new Histogram({
      name: 'webhook_event_to_delivery_seconds',
      help: 'Time from the occurrence of an Event to its successful delivery (retries included)',
      buckets: [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 5, 30, 300, 3600, 86400],
      registers: [registry],
    });
    this.retryClock = new Gauge({
      name: 'webhook_retry_clock_seconds',
      help:
        'The clock time the delivery engine last looked for due retries at, in Unix seconds, reported once ' +
        'every delivery it let go was answered (or held on an open circuit) and logged',
      registers: [registry],
    });
  }
}
