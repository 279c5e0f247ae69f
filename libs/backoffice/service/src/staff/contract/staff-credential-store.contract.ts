import { randomBytes } from 'node:crypto';
import type { StaffCredentialStore, StoredCredentials } from '../staff-credential-store.port';

/**
 * What every staff credential store adapter must do (`StaffCredentialStore`), run against SQLite and
 * MongoDB. `open` opens the store on the same storage each time (the same file, the same database) with the
 * master key given, so reopening shows durability; `rawDump` is everything the storage holds, as text (what a
 * copy of the file or database would show).
 */
export interface StaffCredentialStoreContractTarget {
  open(masterKey: Buffer): Promise<StaffCredentialStore>;
  rawDump(): Promise<string>;
  cleanup(): Promise<void>;
}

/**
 * A refusal by the storage or the seals: an error with a message. Not `toThrow()`: a native driver's error
 * class comes from the first Jest realm that loaded it, and is no `Error` of the next one.
 */
const refused = { message: expect.any(String) };

let counter = 0;
const unique = (prefix: string) => `${prefix}-${++counter}-${randomBytes(4).toString('hex')}`;
const hash = () => randomBytes(32).toString('hex');
const at = (minute: number) => new Date(Date.UTC(2026, 10, 23, 10, minute)).toISOString();
const credentialsOf = (overrides: Partial<StoredCredentials> = {}): StoredCredentials => ({
  passwordHash: `scrypt$${randomBytes(16).toString('base64')}`,
  totpSecret: randomBytes(20).toString('hex').toUpperCase(),
  lastTotpStep: 100,
  ...overrides,
});

export function staffCredentialStoreContract(target: StaffCredentialStoreContractTarget): void {
  const masterKey = randomBytes(32);
  let store: StaffCredentialStore;

  /** An invited staff member whose invitation was accepted with `credentials`. */
  async function activeStaff(credentials = credentialsOf()) {
    const staffId = unique('stf');
    const token = hash();
    await store.saveInvitation(token, { staffId, totpSecret: credentials.totpSecret, expiresAt: at(50) });
    expect(await store.acceptInvitation(token, staffId, credentials, at(1))).toBe(true);
    return { staffId, credentials };
  }

  beforeAll(async () => {
    store = await target.open(masterKey);
  });
  afterAll(async () => {
    await store.close();
    await target.cleanup();
  });

  it('keeps an invitation, and the credentials it set, across a reopen', async () => {
    const staffId = unique('stf');
    const token = hash();
    await store.saveInvitation(token, { staffId, totpSecret: 'JBSWY3DPEHPK3PXP', expiresAt: at(50) });
    expect(await store.invitation(token)).toEqual({
      staffId,
      totpSecret: 'JBSWY3DPEHPK3PXP',
      expiresAt: at(50),
      usedAt: null,
    });
    const credentials = credentialsOf({ totpSecret: 'JBSWY3DPEHPK3PXP' });
    expect(await store.acceptInvitation(token, staffId, credentials, at(2))).toBe(true);

    await store.close();
    store = await target.open(masterKey);
    expect(await store.invitation(token)).toMatchObject({ staffId, usedAt: at(2) });
    expect(await store.credentials(staffId)).toEqual(credentials);
    expect(await store.invitation(hash())).toBeNull();
    expect(await store.credentials('stf-never-invited')).toBeNull();
  });

  it('seals passwords and TOTP secrets, and keeps only hashes of invitation tokens and session cookies', async () => {
    const { staffId, credentials } = await activeStaff();
    const cookieHash = hash();
    await store.createSession(cookieHash, {
      sessionId: unique('ses'),
      staffId,
      createdAt: at(3),
      lastSeenAt: at(3),
    });
    const dump = await target.rawDump();
    expect(dump).toContain(staffId);
    expect(dump).toContain(cookieHash);
    expect(dump).not.toContain(credentials.passwordHash);
    expect(dump).not.toContain(credentials.totpSecret);
  });

  it('opens nothing under another master key', async () => {
    const { staffId } = await activeStaff();
    const other = await target.open(randomBytes(32));
    try {
      await expect(other.credentials(staffId)).rejects.toMatchObject(refused);
    } finally {
      await other.close();
    }
  });

  it('accepts an invitation once, for its own staff member only, even when accepts race', async () => {
    const staffId = unique('stf');
    const token = hash();
    await store.saveInvitation(token, { staffId, totpSecret: 'JBSWY3DPEHPK3PXP', expiresAt: at(50) });
    expect(await store.acceptInvitation(token, unique('stf'), credentialsOf(), at(2))).toBe(false);
    expect(await store.invitation(token)).toMatchObject({ usedAt: null });

    const attempts = Array.from({ length: 8 }, (_, i) => credentialsOf({ lastTotpStep: 200 + i }));
    const outcomes = await Promise.all(
      attempts.map((credentials) => store.acceptInvitation(token, staffId, credentials, at(3))),
    );
    expect(outcomes.filter(Boolean)).toHaveLength(1);
    // The credentials stored are the winner's, whole.
    expect(await store.credentials(staffId)).toEqual(attempts[outcomes.indexOf(true)]);
    expect(await store.acceptInvitation(token, staffId, credentialsOf(), at(4))).toBe(false);
    expect(await store.acceptInvitation(hash(), staffId, credentialsOf(), at(4))).toBe(false);
  });

  it('refuses a second invitation under the same token', async () => {
    const token = hash();
    const staffId = unique('stf');
    await store.saveInvitation(token, { staffId, totpSecret: 'JBSWY3DPEHPK3PXP', expiresAt: at(50) });
    await expect(
      store.saveInvitation(token, { staffId: unique('stf'), totpSecret: 'OTHER', expiresAt: at(55) }),
    ).rejects.toMatchObject(refused);
    expect(await store.invitation(token)).toMatchObject({ staffId, expiresAt: at(50) });
  });

  it('accepts each TOTP step once and never an earlier one, even when sign-ins race', async () => {
    const { staffId } = await activeStaff(credentialsOf({ lastTotpStep: 100 }));
    expect(await store.useTotpStep(staffId, 100)).toBe(false);
    expect(await store.useTotpStep(staffId, 99)).toBe(false);
    const outcomes = await Promise.all(Array.from({ length: 8 }, () => store.useTotpStep(staffId, 101)));
    expect(outcomes.filter(Boolean)).toHaveLength(1);
    expect(await store.useTotpStep(staffId, 101)).toBe(false);
    expect(await store.credentials(staffId)).toMatchObject({ lastTotpStep: 101 });
    expect(await store.useTotpStep('stf-never-invited', 500)).toBe(false);
  });

  it('keeps sessions by cookie hash and ends them one by one or all of a staff member at once', async () => {
    const { staffId } = await activeStaff();
    const sessions = Array.from({ length: 3 }, () => ({ sessionId: unique('ses'), cookie: hash() }));
    for (const { sessionId, cookie } of sessions) {
      await store.createSession(cookie, { sessionId, staffId, createdAt: at(5), lastSeenAt: at(5) });
    }
    const [first, second, third] = sessions;
    expect(await store.sessionByHash(first.cookie)).toEqual({
      sessionId: first.sessionId,
      staffId,
      createdAt: at(5),
      lastSeenAt: at(5),
      endedAt: null,
    });
    expect(await store.sessionByHash(hash())).toBeNull();

    await store.touchSession(first.sessionId, at(9));
    await store.touchSession(first.sessionId, at(7));
    expect(await store.sessionByHash(first.cookie)).toMatchObject({ lastSeenAt: at(9) });

    expect(await store.endSession(first.sessionId, at(10))).toBe(true);
    expect(await store.endSession(first.sessionId, at(11))).toBe(false);
    await store.touchSession(first.sessionId, at(12));
    expect(await store.sessionByHash(first.cookie)).toMatchObject({ endedAt: at(10), lastSeenAt: at(9) });

    expect(await store.endSessionsOf(staffId, at(13))).toBe(2);
    expect(await store.endSessionsOf(staffId, at(14))).toBe(0);
    for (const { cookie } of [second, third])
      expect(await store.sessionByHash(cookie)).toMatchObject({ endedAt: at(13) });

    await store.close();
    store = await target.open(masterKey);
    expect(await store.sessionByHash(third.cookie)).toMatchObject({ staffId, endedAt: at(13) });
  });

  it('refuses a second session under the same cookie hash', async () => {
    const { staffId } = await activeStaff();
    const cookie = hash();
    const sessionId = unique('ses');
    await store.createSession(cookie, { sessionId, staffId, createdAt: at(5), lastSeenAt: at(5) });
    await expect(
      store.createSession(cookie, { sessionId: unique('ses'), staffId, createdAt: at(6), lastSeenAt: at(6) }),
    ).rejects.toMatchObject(refused);
    expect(await store.sessionByHash(cookie)).toMatchObject({ sessionId });
  });
}
