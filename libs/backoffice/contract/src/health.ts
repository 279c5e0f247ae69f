import type { Environment } from '@cip/shared/contracts';

/** The health page of the dashboard (docs/operator-api.md, "System health"). */
export interface SystemHealthView {
  at: string;
  /** Events in each scope's log not yet processed by each consumer group (read models, sagas, recorders). */
  consumers: { scope: string; group: string; lagEvents: number }[];
  /** 5xx answers of the `/v1` API: how many in the last hour, and the last ten (newest first). */
  serverErrors: {
    lastHour: number;
    last: { at: string; method: string; route: string; status: number; requestId: string }[];
  };
  /** Webhook deliveries not yet finished (queued or waiting for a retry), per environment. */
  webhookBacklog: { environment: Environment; pending: number }[];
}
