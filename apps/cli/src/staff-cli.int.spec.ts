import {
  openStaffAdministration,
  SqliteStaffCredentialStore,
  staffCredentialsFile,
  totpCode,
} from '@cip/backoffice/service';
import { loadPersonalDataMasterKey, openEmbeddedInfrastructure } from '@cip/shared/infrastructure';
import { systemClock } from '@cip/shared/runtime';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { runCliCaptured } from './testing/run-cli-captured';

describe('cli: staff create-admin and list', () => {
  let dataDir: string;
  const cli = (argv: string[], env: Record<string, string> = {}) =>
    runCliCaptured([...argv, '--data-dir', dataDir], { env });

  beforeEach(() => {
    dataDir = mkdtempSync(join(tmpdir(), 'cip-staff-cli-'));
  });
  afterEach(() => rmSync(dataDir, { recursive: true, force: true }));

  it('invites an admin with a one-time link that sets the password and the authenticator', async () => {
    const run = await cli(['staff', 'create-admin', '--email', 'Ada@Example.com', '--name', 'Ada Lovelace']);
    expect(run.code).toBe(0);
    const link = /invitation\s+(\S+)/.exec(run.stdout)?.[1] ?? '';
    expect(link).toMatch(/^http:\/\/localhost:3001\/invitations\/[A-Za-z0-9_-]{43}$/);
    expect(run.stderr).toContain('shown once');

    const listed = await cli(['staff', 'list', '--json']);
    expect(JSON.parse(listed.stdout)).toEqual([
      expect.objectContaining({
        email: 'ada@example.com',
        name: 'Ada Lovelace',
        role: 'admin',
        status: 'invited',
      }),
    ]);

    const infrastructure = openEmbeddedInfrastructure({ dataDir });
    const staff = await openStaffAdministration({
      eventStore: infrastructure.scope('control').eventStore,
      openCredentials: SqliteStaffCredentialStore.opener(staffCredentialsFile(dataDir)),
      masterKey: loadPersonalDataMasterKey(dataDir),
      clock: systemClock,
      invitationUrl: (token) => token,
    });
    try {
      const token = link.split('/').pop() ?? '';
      const pending = await staff.staff.invitation(token);
      expect(pending).toMatchObject({ email: 'ada@example.com', role: 'admin' });
      const code = totpCode(pending.totp.secret, new Date());
      await staff.staff.acceptInvitation(token, { password: 'a long enough password', code });
      await expect(staff.staff.invitation(token)).rejects.toMatchObject({ code: 'not_found' });
      const { data } = await staff.audit.list({ action: 'staff.invite' }, { limit: 10 });
      expect(data[0]).toMatchObject({ staff: { id: 'cli' }, outcome: 'succeeded' });
    } finally {
      await staff.close();
      await infrastructure.close();
    }
    const active = await cli(['staff', 'list']);
    expect(active.stdout).toMatch(/ada@example\.com\s+Ada Lovelace\s+admin\s+active/);
  });

  it('starts the link with DASHBOARD_PUBLIC_URL, and refuses a second account for the same email', async () => {
    const env = { DASHBOARD_PUBLIC_URL: 'https://backoffice.example.com' };
    const run = await cli(['staff', 'create-admin', '--email', 'grace@example.com', '--name', 'Grace'], env);
    expect(run.stdout).toContain('https://backoffice.example.com/invitations/');
    const again = await cli(
      ['staff', 'create-admin', '--email', 'GRACE@example.com', '--name', 'Grace'],
      env,
    );
    expect(again.code).toBe(1);
    expect(again.stderr).toContain('already exists');
    const wrong = await cli(['staff', 'create-admin', '--email', 'not-an-email', '--name', 'X']);
    expect(wrong.code).toBe(2);
  });
});
