import { PROCESS_HEALTH_STALE_MS, type ProcessHealthReport } from '@cip/shared/infrastructure';
import { systemHealthOf } from './system-health.service';

const NOW = Date.parse('2026-11-27T12:00:00.000Z');

function report(
  process: string,
  ageMs: number,
  parts: Partial<Pick<ProcessHealthReport, 'consumers' | 'serverErrors' | 'webhookBacklog'>> = {},
): ProcessHealthReport {
  const at = new Date(NOW - ageMs).toISOString();
  return {
    id: `${process}@host:${ageMs}`,
    process,
    host: 'host',
    pid: 100 + ageMs,
    createdAt: at,
    updatedAt: at,
    startedAt: at,
    reportedAt: at,
    consumers: [],
    serverErrors: { lastHour: 0, last: [] },
    webhookBacklog: null,
    ...parts,
  };
}

const error = (at: string, requestId: string) => ({
  at,
  method: 'GET',
  route: '/v1/users/:userId',
  status: 503,
  requestId,
});

describe('the health page of the whole platform, from its processes reports', () => {
  const health = (reports: ProcessHealthReport[]) =>
    systemHealthOf(reports, { at: new Date(NOW), wallClock: NOW });

  it('lists every process, sorted, reporting while its report is fresh', () => {
    const view = health([
      report('users', 1_000),
      report('gateway', PROCESS_HEALTH_STALE_MS),
      report('kyc', PROCESS_HEALTH_STALE_MS + 1),
    ]);
    expect(view.processes.map((p) => [p.process, p.reporting])).toEqual([
      ['gateway', true],
      ['kyc', false],
      ['users', true],
    ]);
    expect(view.at).toBe('2026-11-27T12:00:00.000Z');
  });

  it("shows the lag of the groups of the processes reporting, each with its process; a silent process's groups are left out", () => {
    const view = health([
      report('users', 0, { consumers: [{ scope: 'sandbox', group: 'users.projection', lagEvents: 4 }] }),
      report('cards', 0, { consumers: [{ scope: 'production', group: 'cards.projection', lagEvents: 0 }] }),
      report('kyc', PROCESS_HEALTH_STALE_MS + 1, {
        consumers: [{ scope: 'sandbox', group: 'kyc.projection', lagEvents: 999 }],
      }),
    ]);
    expect(view.consumers).toEqual([
      { scope: 'production', group: 'cards.projection', lagEvents: 0, process: 'cards' },
      { scope: 'sandbox', group: 'users.projection', lagEvents: 4, process: 'users' },
    ]);
  });

  it('adds up the 5xx answers of every process, a stopped one included, and lists the ten newest', () => {
    const gatewayErrors = Array.from({ length: 8 }, (_, i) =>
      error(`2026-11-27T11:5${i}:00.000Z`, `req_g${i}`),
    ).reverse();
    const view = health([
      report('gateway', 0, { serverErrors: { lastHour: 30, last: gatewayErrors } }),
      report('gateway', PROCESS_HEALTH_STALE_MS * 10, {
        serverErrors: {
          lastHour: 5,
          last: [
            error('2026-11-27T11:59:30.000Z', 'req_old1'),
            error('2026-11-27T11:10:00.000Z', 'req_old2'),
          ],
        },
      }),
      report('users', 0, {
        serverErrors: { lastHour: 2, last: [error('2026-11-27T11:00:00.000Z', 'req_u')] },
      }),
    ]);
    expect(view.serverErrors.lastHour).toBe(37);
    expect(view.serverErrors.last.map((e) => e.requestId)).toEqual([
      'req_old1',
      'req_g7',
      'req_g6',
      'req_g5',
      'req_g4',
      'req_g3',
      'req_g2',
      'req_g1',
      'req_g0',
      'req_old2',
    ]);
  });

  it('adds up the webhook backlog of the processes reporting that deliver webhooks, per environment', () => {
    const backlog = (sandbox: number, production: number) => [
      { environment: 'sandbox', pending: sandbox },
      { environment: 'production', pending: production },
    ];
    expect(
      health([
        report('webhooks', 0, { webhookBacklog: backlog(3, 1) }),
        report('webhooks', 1_000, { webhookBacklog: backlog(2, 0) }),
        report('webhooks', PROCESS_HEALTH_STALE_MS + 1, { webhookBacklog: backlog(100, 100) }),
        report('gateway', 0),
      ]).webhookBacklog,
    ).toEqual([
      { environment: 'sandbox', pending: 5 },
      { environment: 'production', pending: 1 },
    ]);
    expect(health([report('gateway', 0)]).webhookBacklog).toEqual([
      { environment: 'sandbox', pending: 0 },
      { environment: 'production', pending: 0 },
    ]);
  });
});
