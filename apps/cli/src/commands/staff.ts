import { STAFF_ROLES } from '@cip/backoffice/contract';
import {
  inviteAdminAsOperator,
  openStaffAdministration,
  postgresStaffCredentials,
  SqliteStaffCredentialStore,
  staffCredentialsFile,
  type StaffAdministration,
} from '@cip/backoffice/service';
import { personalDataMasterKey } from '@cip/shared/eventing';
import { loadPersonalDataMasterKey } from '@cip/shared/infrastructure';
import { dashboardBaseUrl, clockFromEnvironment, readPlatformConfig } from '@cip/shared/runtime';
import type { Command } from 'commander';
import { Cli, CommandContext, commandGroup, examples, print, table, UsageError } from '../command';
import { nonEmpty } from '../options';

/**
 * Where staff live: the data directory's control store and staff credential store (embedded), or, with
 * STORE_DRIVER=postgres, the control scope and the `staff_credentials` schema of DATABASE_URL, as the
 * dashboard on that driver reads them (`staff create-admin` on a PostgreSQL deployment).
 */
async function staffStores(context: CommandContext) {
  if (context.io.env.STORE_DRIVER !== 'postgres') {
    return {
      eventStore: context.infrastructure().scope('control').eventStore,
      openCredentials: SqliteStaffCredentialStore.opener(staffCredentialsFile(context.dataDir)),
      masterKey: loadPersonalDataMasterKey(context.dataDir, context.io.env.PERSONAL_DATA_MASTER_KEY),
    };
  }
  // The stores the command runs on (cli.ts opened them: DATABASE_URL and the master key are set and valid).
  const env = context.io.env;
  return {
    eventStore: context.infrastructure().scope('control').eventStore,
    openCredentials: postgresStaffCredentials({ databaseUrl: env.DATABASE_URL ?? '', poolSize: 1 }),
    masterKey: personalDataMasterKey(env.PERSONAL_DATA_MASTER_KEY ?? ''),
  };
}

/** The staff services over the control store and the staff credential store (`staffStores`). */
async function withStaff<T>(
  context: CommandContext,
  use: (staff: StaffAdministration) => Promise<T>,
): Promise<T> {
  let baseUrl: string;
  try {
    baseUrl = dashboardBaseUrl(readPlatformConfig(context.io.env));
  } catch (error) {
    // The platform would refuse to start with this environment: say which variable is wrong.
    throw new UsageError(error instanceof Error ? error.message : String(error), false);
  }
  const administration = await openStaffAdministration({
    ...(await staffStores(context)),
    clock: clockFromEnvironment(),
    invitationUrl: (token) => `${baseUrl}/invitations/${token}`,
  });
  try {
    return await use(administration);
  } finally {
    await administration.close();
  }
}

export function registerStaffCommands(program: Command, cli: Cli): void {
  const staff = commandGroup(program, 'staff', 'Backoffice staff: the first admin, and who has access.');

  staff
    .command('create-admin')
    .description(
      'Invite an admin of the backoffice dashboard: prints a one-time invitation link (72 hours) where they set ' +
        'a password and an authenticator app. Admins invite the other staff from the dashboard.',
    )
    .requiredOption('--email <email>', "the admin's email", nonEmpty)
    .requiredOption('--name <name>', "the admin's name", nonEmpty)
    .addHelpText('after', examples('staff create-admin --email ada@example.com --name "Ada Lovelace"'))
    .action(
      cli.action<{ email: string; name: string }>(async (context, { options }) => {
        if (!/^[^\s@]+@[^\s@]+\.[^\s@]+$/.test(options.email) || options.email.length > 254) {
          throw new UsageError(`--email: ${options.email} is not an email address`);
        }
        const invited = await withStaff(context, (administration) =>
          inviteAdminAsOperator(administration, { email: options.email, name: options.name }),
        );
        await print(context, invited, () => [
          `Invited admin ${invited.staff.id} (${invited.staff.email})`,
          `  invitation  ${invited.invitation.url}`,
          `  expires     ${invited.invitation.expiresAt}`,
        ]);
        context.io.err(
          'The invitation link is shown once and works once: send it to the person over a channel you trust.\n',
        );
        return 0;
      }),
    );

  staff
    .command('list')
    .description(`List the staff members, their roles (${STAFF_ROLES.join(', ')}) and status.`)
    .addHelpText('after', examples('staff list', 'staff list --json'))
    .action(
      cli.action(async (context) => {
        const list = await withStaff(context, ({ staff: service }) => service.list());
        await print(context, list, () =>
          list.length === 0
            ? ['No staff yet: invite the first admin with `staff create-admin`.']
            : table(
                ['ID', 'EMAIL', 'NAME', 'ROLE', 'STATUS', 'LOCKED UNTIL'],
                list.map((s) => [s.id, s.email, s.name, s.role, s.status, s.lockedUntil ?? '']),
              ),
        );
        return 0;
      }),
    );
}
