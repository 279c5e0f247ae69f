import { Controller, Get, Header, Inject } from '@nestjs/common';
import { ApiExcludeController } from '@nestjs/swagger';
import { METRICS, PlatformMetrics } from '@cip/shared/runtime';

/** Liveness/readiness and Prometheus metrics (no API key: scraped by the platform's own tooling). */
@ApiExcludeController()
@Controller()
export class SystemController {
  constructor(@Inject(METRICS) private readonly metrics: PlatformMetrics) {}

  @Get('health')
  health() {
    return { status: 'ok' };
  }

  @Get('metrics')
  @Header('content-type', 'text/plain; version=0.0.4; charset=utf-8')
  async prometheus(): Promise<string> {
    return this.metrics.registry.metrics();
  }
}
