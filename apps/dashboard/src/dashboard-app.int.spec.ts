import type { NestFastifyApplication } from '@nestjs/platform-fastify';
import { createOperatorApp, OperatorModule } from '@cip/backoffice/http';
import { OperatorQueries, SqliteStaffCredentialStore, staffCredentialsFile } from '@cip/backoffice/service';
import { DistributorsService } from '@cip/distributors/service';
import { PLATFORM_SERVICES, serviceEnvPrefix } from '@cip/platform/registry';
import { openEmbeddedInfrastructure } from '@cip/shared/infrastructure';
import { createLogger, PlatformMetrics, readPlatformConfig } from '@cip/shared/runtime';
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { createServer, type AddressInfo, type Server } from 'node:net';
import { randomBytes } from 'node:crypto';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import request from 'supertest';
import { DashboardPlatformModule, dashboardModule } from './dashboard.module';

// The dashboard app as main.ts composes it, on the embedded stores instead of the servers: every context
// service's address is a port that drops each connection, as an unreachable service would.

describe('dashboard app (distributed runtime)', () => {
  const dataDir = mkdtempSync(join(tmpdir(), 'cip-dashboard-'));
  const infrastructure = openEmbeddedInfrastructure({ dataDir });
  const logger = createLogger('silent');
  let dropping: Server;
  let app: NestFastifyApplication;
  const http = () => request(app.getHttpServer());

  beforeAll(async () => {
    dropping = createServer((socket) => socket.destroy());
    await new Promise<void>((resolve) => dropping.listen(0, '127.0.0.1', resolve));
    const { port } = dropping.address() as AddressInfo;
    const env = Object.fromEntries(
      PLATFORM_SERVICES.flatMap((service) => {
        const prefix = serviceEnvPrefix(service.name);
        return [
          [`${prefix}_HOST`, '127.0.0.1'],
          [`${prefix}_TCP_PORT`, String(port)],
        ];
      }),
    );
    app = await createOperatorApp(
      OperatorModule.forRoot({
        platform: DashboardPlatformModule.forRoot({
          infrastructure: {
            open: () => ({ ...infrastructure, close: async () => undefined }),
            runConsumers: false,
            process: 'dashboard',
            logger,
            metrics: new PlatformMetrics(false),
          },
          env,
        }),
        backoffice: {
          openCredentials: SqliteStaffCredentialStore.opener(staffCredentialsFile(dataDir)),
          masterKey: randomBytes(32),
          invitationUrl: (token) => `http://dashboard.test/invitations/${token}`,
        },
      }),
      { logger, dashboardDir: join(dataDir, 'no-dashboard-build') },
    );
    await app.getHttpAdapter().getInstance().ready();
  });

  afterAll(async () => {
    await app?.close();
    await infrastructure.close();
    await new Promise((resolve) => dropping?.close(resolve));
    rmSync(dataDir, { recursive: true, force: true });
  });

  it('answers /health and /metrics without a session', async () => {
    expect((await http().get('/health').expect(200)).body).toMatchObject({ status: 'ok', notReady: [] });
    expect((await http().get('/metrics').expect(200)).text).toContain(
      'http_request_duration_seconds_count{method="GET",route="/health"',
    );
  });

  it('keeps the operator API behind sign-in', async () => {
    const answer = await http().get('/operator/v1/session').expect(401);
    expect(answer.body.error.code).toBe('unauthorized');
  });

  it('answers service_unavailable when a context service cannot be reached', async () => {
    await app.get(DistributorsService).bootstrap({ sandboxKey: `sk_sandbox_${'a'.repeat(32)}` });
    await expect(app.get(OperatorQueries).userDetail('sandbox', 'usr-unknown')).rejects.toMatchObject({
      code: 'service_unavailable',
    });
  });
});

describe('dashboard app on the embedded driver (the split platform on one host)', () => {
  const dataDir = mkdtempSync(join(tmpdir(), 'cip-dashboard-embedded-'));
  let app: NestFastifyApplication;

  beforeAll(async () => {
    const env = { STORE_DRIVER: 'embedded', DATA_DIR: dataDir, LOG_LEVEL: 'silent' };
    app = await createOperatorApp(
      dashboardModule({ config: readPlatformConfig(env), logger: createLogger('silent'), env }),
      { logger: createLogger('silent'), dashboardDir: join(dataDir, 'no-dashboard-build') },
    );
    await app.getHttpAdapter().getInstance().ready();
  });

  afterAll(async () => {
    await app?.close();
    rmSync(dataDir, { recursive: true, force: true });
  });

  it("opens DATA_DIR's stores and keeps staff credentials beside them, needing no server", async () => {
    await request(app.getHttpServer()).get('/health').expect(200);
    expect((await request(app.getHttpServer()).get('/operator/v1/session').expect(401)).body.error.code).toBe(
      'unauthorized',
    );
    expect(existsSync(join(dataDir, 'control.sqlite'))).toBe(true);
    expect(existsSync(staffCredentialsFile(dataDir))).toBe(true);
  });
});
