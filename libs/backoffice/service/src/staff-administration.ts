import type { EventStore } from '@cip/shared/eventing';
import type { Clock } from '@cip/shared/runtime';
import { AuditTrailService, CLI_ACTOR } from './audit/audit-trail.service';
import type { PasswordHasher } from './staff/passwords';
import type { OpenStaffCredentialStore } from './staff/staff-credential-store.port';
import { StaffDirectory } from './staff/staff-directory';
import { StaffService } from './staff/staff.service';

export interface StaffAdministration {
  directory: StaffDirectory;
  staff: StaffService;
  audit: AuditTrailService;
  close(): Promise<void>;
}

/** The staff services over a control store and a credential store: the operator app's, and the CLI's. */
export async function openStaffAdministration(options: {
  eventStore: EventStore;
  /** The runtime's credential store: `SqliteStaffCredentialStore.opener(file)`, `mongoStaffCredentials(...)`. */
  openCredentials: OpenStaffCredentialStore;
  masterKey: Buffer;
  clock: Clock;
  invitationUrl(token: string): string;
  /** scrypt unless a test counts the calls. */
  passwords?: PasswordHasher;
}): Promise<StaffAdministration> {
  const directory = new StaffDirectory(options.eventStore);
  const credentials = await options.openCredentials(options.masterKey);
  const audit = new AuditTrailService(options.eventStore, directory, options.clock);
  const staff = new StaffService(options.eventStore, directory, credentials, audit, options.clock, {
    invitationUrl: options.invitationUrl,
    masterKey: options.masterKey,
    passwords: options.passwords,
  });
  return {
    directory,
    staff,
    audit,
    close: async () => {
      await directory.stop();
      await credentials.close();
    },
  };
}

/**
 * Invites an admin on the operator's own authority (the CLI's `staff create-admin`, the distributed
 * dashboard app's `create-admin`): the first admin, who invites the rest. Audited as the CLI.
 */
export async function inviteAdminAsOperator(
  administration: Pick<StaffAdministration, 'staff' | 'audit'>,
  input: { email: string; name: string },
): ReturnType<StaffService['invite']> {
  const invited = await administration.staff.invite({ ...input, role: 'admin' }, null);
  await administration.audit.recordAs(CLI_ACTOR, {
    action: 'staff.invite',
    environment: null,
    target: { type: 'staff', id: invited.staff.id },
  });
  return invited;
}
