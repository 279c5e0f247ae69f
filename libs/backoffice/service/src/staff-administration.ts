import type { EventStore } from '@cip/shared/eventing';
import type { Clock } from '@cip/shared/runtime';
import { AuditTrailService } from './audit/audit-trail.service';
import { StaffCredentialStore } from './staff/staff-credential-store';
import { StaffDirectory } from './staff/staff-directory';
import { StaffService } from './staff/staff.service';

export interface StaffAdministration {
  directory: StaffDirectory;
  staff: StaffService;
  audit: AuditTrailService;
  close(): Promise<void>;
}

/** The staff services over a control store and a credential store: the operator app's, and the CLI's. */
export function openStaffAdministration(options: {
  eventStore: EventStore;
  credentialsFile: string;
  masterKey: Buffer;
  clock: Clock;
  invitationUrl(token: string): string;
}): StaffAdministration {
  const directory = new StaffDirectory(options.eventStore);
  const credentials = StaffCredentialStore.open(options.credentialsFile, options.masterKey);
  const audit = new AuditTrailService(options.eventStore, directory, options.clock);
  const staff = new StaffService(options.eventStore, directory, credentials, audit, options.clock, {
    invitationUrl: options.invitationUrl,
    masterKey: options.masterKey,
  });
  return {
    directory,
    staff,
    audit,
    close: async () => {
      await directory.stop();
      credentials.close();
    },
  };
}
