import { Controller, Get, Header, Inject, Res } from '@nestjs/common';
import { ApiExcludeController } from '@nestjs/swagger';
import { METRICS, PlatformMetrics } from '@cip/shared/runtime';
import { Readiness, ReadinessReport } from './health/readiness';

/** The part of a Fastify reply or an Express response /health needs. */
interface StatusReply {
  status(code: number): unknown;
}

/**
 * Readiness, liveness and Prometheus metrics (no API key: probed and scraped by the platform's own
 * tooling). /health is readiness: 200 `{status: 'ok', …}` when every dependency of the process answers,
 * 503 `{status: 'unavailable', notReady: [...]}` naming those that do not (a store, a consumer group, a
 * relay loop). /health/live only says the process answers: a blocked event loop fails it by timing out.
 */
@ApiExcludeController()
@Controller()
export class SystemController {
  constructor(
    @Inject(METRICS) private readonly metrics: PlatformMetrics,
    @Inject(Readiness) private readonly readiness: Readiness,
  ) {}

  @Get('health')
  async health(@Res({ passthrough: true }) reply: StatusReply): Promise<ReadinessReport> {
    const report = await this.readiness.report();
    if (report.status !== 'ok') reply.status(503);
    return report;
  }

  @Get('health/live')
  live() {
    return { status: 'ok', uptimeSeconds: Math.round(process.uptime()) };
  }

  @Get('metrics')
  @Header('content-type', 'text/plain; version=0.0.4; charset=utf-8')
  async prometheus(): Promise<string> {
    return this.metrics.registry.metrics();
  }
}
