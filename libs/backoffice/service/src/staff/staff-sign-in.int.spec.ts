import { openEmbeddedInfrastructure, type Infrastructure } from '@cip/shared/infrastructure';
import { ManualClock } from '@cip/shared/runtime';
import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { openStaffAdministration, type StaffAdministration } from '../staff-administration';
import type { PasswordHasher } from './passwords';
import { SqliteStaffCredentialStore, staffCredentialsFile } from './sqlite-staff-credential-store';
import { totpCode } from './totp';

/**
 * A password hasher that counts what sign-in asks of it: `verify` calls, and how many of them were against
 * the decoy hash (the work an unknown email costs instead of an account's hash).
 */
class CountingPasswords implements PasswordHasher {
  verifications = 0;
  againstDecoy = 0;
  private readonly decoy = `plain$decoy-${randomBytes(8).toString('hex')}`;

  async hash(password: string): Promise<string> {
    return `plain$${password}`;
  }
  async verify(password: string, stored: string): Promise<boolean> {
    this.verifications++;
    if (stored === this.decoy) this.againstDecoy++;
    return stored === `plain$${password}`;
  }
  async decoyHash(): Promise<string> {
    return this.decoy;
  }
}

// Issue 38: a sign-in tells no existing account from an unknown email, by its answers or by its work.
describe('staff sign-in: an unknown email is answered and locked out like an account', () => {
  let dataDir: string;
  let infrastructure: Infrastructure;
  let administration: StaffAdministration;
  let passwords: CountingPasswords;
  const clock = new ManualClock('2026-03-02T10:00:00.000Z');

  beforeEach(async () => {
    dataDir = mkdtempSync(join(tmpdir(), 'cip-staff-sign-in-'));
    infrastructure = openEmbeddedInfrastructure({ dataDir });
    passwords = new CountingPasswords();
    administration = await openStaffAdministration({
      eventStore: infrastructure.scope('control').eventStore,
      openCredentials: SqliteStaffCredentialStore.opener(staffCredentialsFile(dataDir)),
      masterKey: randomBytes(32),
      clock,
      invitationUrl: (token) => token,
      passwords,
    });
  });
  afterEach(async () => {
    await administration.close();
    await infrastructure.close();
    rmSync(dataDir, { recursive: true, force: true });
  });

  const member = async (email: string) => {
    const { invitation } = await administration.staff.invite({ email, name: 'Ada', role: 'viewer' }, null);
    const pending = await administration.staff.invitation(invitation.url);
    const password = 'the right password';
    await administration.staff.acceptInvitation(invitation.url, {
      password,
      code: totpCode(pending.totp.secret, clock.now()),
    });
    clock.advance(30_000);
    return { password, secret: pending.totp.secret };
  };

  /** The answer of each attempt, as the HTTP layer sees it, and the verifications each cost. */
  const attempts = async (email: string, count: number) => {
    const answers: object[] = [];
    for (let i = 0; i < count; i++) {
      const before = passwords.verifications;
      const error = await administration.staff
        .signIn({ email, password: `wrong password ${i}`, code: '000000' })
        .then(
          () => null,
          (e: unknown) => e as Record<string, unknown>,
        );
      answers.push({
        code: error?.code,
        message: error?.message,
        details: error?.details,
        retryAfterSeconds: error?.retryAfterSeconds,
        verifications: passwords.verifications - before,
      });
    }
    return answers;
  };

  it('gives the same answers to the same wrong sign-ins, and verifies a password each time in both cases', async () => {
    await member('ada@example.com');
    const verificationsBefore = passwords.verifications;

    // The same instant for both sequences: the lockout's end (in the 423's message) is the same too.
    const existing = await attempts('ada@example.com', 7);
    const existingDecoys = passwords.againstDecoy;
    const unknown = await attempts('nobody@example.com', 7);

    const failure = {
      code: 'invalid_credentials',
      message: 'The email, password or code is not valid',
      verifications: 1,
    };
    const locked = {
      code: 'account_locked',
      message: 'Too many failed sign-ins: the account is locked until 2026-03-02T10:15:30.000Z',
      retryAfterSeconds: 900,
      verifications: 0,
    };
    const expected = [failure, failure, failure, failure, failure, locked, locked];
    expect(existing.map((answer) => ({ ...answer, details: undefined }))).toEqual(
      expected.map((answer) => ({ ...answer, details: undefined })),
    );
    expect(unknown).toEqual(existing);
    // The work: one verification per attempt before the lockout, none after, in both cases; the unknown
    // email's against the decoy hash.
    expect(passwords.verifications - verificationsBefore).toBe(10);
    expect(existingDecoys).toBe(0);
    expect(passwords.againstDecoy).toBe(5);
  });

  it("keeps an unknown email's lockout 15 minutes, then counts again from zero, like an account's", async () => {
    const first = await attempts('nobody@example.com', 6);
    expect(first.map((answer) => (answer as { code: string }).code)).toEqual([
      ...Array(5).fill('invalid_credentials'),
      'account_locked',
    ]);
    clock.advance(15 * 60 * 1000 + 1);
    const after = await attempts('NOBODY@example.com ', 5);
    expect(after.map((answer) => (answer as { code: string }).code)).toEqual(
      Array(5).fill('invalid_credentials'),
    );
    expect((await attempts('nobody@example.com', 1))[0]).toMatchObject({ code: 'account_locked' });
    // Another unknown email is not affected.
    expect((await attempts('someone.else@example.com', 1))[0]).toMatchObject({ code: 'invalid_credentials' });
  });

  it('records the refusals of an unknown email in the audit trail (staff id unknown), with its lockout', async () => {
    await attempts('nobody@example.com', 6);
    const { data } = await administration.audit.list({}, { limit: 20 });
    const actions = data.map((entry) => `${entry.action}:${entry.outcome}:${entry.errorCode ?? ''}`);
    expect(actions.filter((a) => a === 'session.signIn:refused:invalid_credentials')).toHaveLength(5);
    expect(actions.filter((a) => a === 'session.signIn:refused:account_locked')).toHaveLength(1);
    expect(actions.filter((a) => a.startsWith('staff.lockout:'))).toHaveLength(1);
    expect(data.every((entry) => entry.staff.id === 'unknown')).toBe(true);
  });
});
