import 'reflect-metadata';
import { NestFactory } from '@nestjs/core';
import { AuditTrailService, inviteAdminAsOperator, StaffService } from '@cip/backoffice/service';
import { createLogger, readPlatformConfig, runMain } from '@cip/shared/runtime';
import { parseArgs } from 'node:util';
import { dashboardModule } from './dashboard.module';

/**
 * The first admin of the distributed runtime (the CLI's `staff create-admin` works on DATA_DIR's stores):
 * `node dist/apps/dashboard/src/create-admin.js --email <email> --name <name>` with the dashboard's
 * environment prints a one-time invitation link (72 hours). Admins invite the other staff from the dashboard.
 */
runMain('Dashboard create-admin', async () => {
  const { values } = parseArgs({ options: { email: { type: 'string' }, name: { type: 'string' } } });
  if (!values.email || !values.name) throw new Error('Usage: create-admin --email <email> --name <name>');
  const config = readPlatformConfig();
  const logger = createLogger('warn', 'dashboard');
  const app = await NestFactory.createApplicationContext(dashboardModule({ config, logger }), {
    logger: false,
  });
  try {
    const invited = await inviteAdminAsOperator(
      { staff: app.get(StaffService), audit: app.get(AuditTrailService) },
      { email: values.email, name: values.name },
    );
    process.stdout.write(
      `Invited admin ${invited.staff.id} (${invited.staff.email})\n` +
        `  invitation  ${invited.invitation.url} (shown once, works once)\n` +
        `  expires     ${invited.invitation.expiresAt}\n`,
    );
  } finally {
    await app.close();
  }
});
