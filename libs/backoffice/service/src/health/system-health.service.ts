import type { SystemHealthView } from '@cip/backoffice/contract';
import { ENVIRONMENTS } from '@cip/shared/contracts';
import {
  PROCESS_HEALTH_STALE_MS,
  type ProcessHealthReport,
  type ProcessHealthReporter,
} from '@cip/shared/infrastructure';
import type { Clock } from '@cip/shared/runtime';

/** How many of the last 5xx answers the page lists. */
const LAST_SERVER_ERRORS = 10;

/**
 * The health page of the whole platform from the reports its processes write (ProcessHealthReporter): this
 * process's report taken now, every other process's last one from the control store. The one-process
 * platform is one report; the split platform one per process, whichever the dashboard runs in.
 * - processes: each one seen in the last hour, `reporting` while its report is under PROCESS_HEALTH_STALE_MS old;
 * - consumers: the lag of each consumer group of the processes reporting, with the process running it;
 * - serverErrors: the `/v1` 5xx answers each process gave (the gateway's; a stopped one's still count);
 * - webhookBacklog: the deliveries pending in the processes reporting that deliver webhooks.
 */
export class SystemHealthService {
  constructor(
    private readonly clock: Clock,
    private readonly reporter: ProcessHealthReporter,
  ) {}

  async health(): Promise<SystemHealthView> {
    const own = await this.reporter.current();
    const others = (await this.reporter.all()).filter((report) => report.id !== own.id);
    return systemHealthOf([own, ...others], { at: this.clock.now(), wallClock: Date.now() });
  }
}

/** The page from the processes' reports (`wallClock`: what their `reportedAt` is compared with). */
export function systemHealthOf(
  reports: ProcessHealthReport[],
  now: { at: Date; wallClock: number },
): SystemHealthView {
  const sorted = [...reports].sort((a, b) => a.process.localeCompare(b.process) || a.id.localeCompare(b.id));
  const reporting = (report: ProcessHealthReport) =>
    now.wallClock - Date.parse(report.reportedAt) <= PROCESS_HEALTH_STALE_MS;
  const live = sorted.filter(reporting);
  return {
    at: now.at.toISOString(),
    processes: sorted.map((report) => ({
      process: report.process,
      instance: report.id,
      host: report.host,
      pid: report.pid,
      startedAt: report.startedAt,
      reportedAt: report.reportedAt,
      reporting: reporting(report),
    })),
    consumers: live
      .flatMap((report) => report.consumers.map((consumer) => ({ ...consumer, process: report.process })))
      .sort(
        (a, b) =>
          a.scope.localeCompare(b.scope) ||
          a.group.localeCompare(b.group) ||
          a.process.localeCompare(b.process),
      ),
    serverErrors: {
      lastHour: sorted.reduce((sum, report) => sum + report.serverErrors.lastHour, 0),
      last: sorted
        .flatMap((report) => report.serverErrors.last)
        .sort((a, b) => b.at.localeCompare(a.at))
        .slice(0, LAST_SERVER_ERRORS),
    },
    webhookBacklog: ENVIRONMENTS.map((environment) => ({
      environment,
      pending: live.reduce(
        (sum, report) =>
          sum + (report.webhookBacklog?.find((b) => b.environment === environment)?.pending ?? 0),
        0,
      ),
    })),
  };
}
