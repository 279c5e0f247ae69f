import type { Environment } from '@cip/shared/contracts';

/** The health page of the dashboard (docs/operator-api.md, "System health"): every process of the platform. */
export interface SystemHealthView {
  at: string;
  /**
   * Each process seen in the last hour (one for the one-process platform, one per service, gateway and dashboard
   * split): `reporting` while its last report is under 15 s old; a process that stopped on purpose is gone.
   */
  processes: {
    process: string;
    instance: string;
    host: string;
    pid: number;
    startedAt: string;
    reportedAt: string;
    reporting: boolean;
  }[];
  /**
   * Events in each scope's log not yet processed by each consumer group (read models, sagas, recorders), as
   * the process running the group (`process`) last reported.
   */
  consumers: { scope: string; group: string; lagEvents: number; process: string }[];
  /** 5xx answers of the `/v1` API: how many in the last hour, and the last ten (newest first). */
  serverErrors: {
    lastHour: number;
    last: { at: string; method: string; route: string; status: number; requestId: string }[];
  };
  /** Webhook deliveries not yet finished (queued or waiting for a retry), per environment. */
  webhookBacklog: { environment: Environment; pending: number }[];
}
