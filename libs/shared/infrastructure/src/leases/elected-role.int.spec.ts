import { LeaseTerm, Leases, SqliteLeases } from '@cip/shared/read-store';
import { openSqliteDatabase, SqliteDatabase } from '@cip/shared/runtime';
import { within } from '@cip/shared/testing';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ElectedRole } from './elected-role';

const TTL_MS = 600;
const LEASE = 'webhooks.dispatcher';

/** One process's runner, with what it did and when, and signals for its next election and deposition. */
function instance(leases: Leases, holder: string, timeline: string[], ttlMs = TTL_MS) {
  let elected: (term: LeaseTerm) => void = () => undefined;
  let deposed: () => void = () => undefined;
  const next = {
    elected: new Promise<LeaseTerm>((resolve) => (elected = resolve)),
    deposed: new Promise<void>((resolve) => (deposed = resolve)),
  };
  const role = new ElectedRole({
    leases,
    name: LEASE,
    holder,
    ttlMs,
    onElected: (term) => {
      timeline.push(`${holder} elected ${term.fencingToken}`);
      elected(term);
    },
    onDeposed: () => {
      timeline.push(`${holder} deposed`);
      deposed();
    },
  });
  return { role, next };
}

/** A process's view of the store that a kill (or a partition) cuts: its calls never answer again. */
function severable(leases: Leases) {
  let cut = false;
  const never = new Promise<never>(() => undefined);
  return {
    leases: {
      acquire: (name, holder, ttlMs) => (cut ? never : leases.acquire(name, holder, ttlMs)),
      release: (name, holder) => (cut ? never : leases.release(name, holder)),
    } satisfies Leases,
    kill: () => {
      cut = true;
    },
  };
}

describe('ElectedRole: one dispatcher among replicas (SQLite leases of one DATA_DIR)', () => {
  const dir = mkdtempSync(join(tmpdir(), 'cip-elected-'));
  let db: SqliteDatabase;
  let leases: SqliteLeases;
  const roles: ElectedRole[] = [];

  beforeAll(() => {
    db = openSqliteDatabase(join(dir, 'control.sqlite'));
    leases = new SqliteLeases(db);
  });
  afterEach(async () => {
    // The killed ones hang on their store: stop only what still answers.
    await Promise.all(
      roles
        .splice(0)
        .map((role) => within(role.stop(), { what: 'stop', timeoutMs: 2_000 }).catch(() => undefined)),
    );
  });
  afterAll(() => {
    db.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it('elects one; when the leader is killed the standby takes over within the ttl, after the leader stopped its work', async () => {
    const timeline: string[] = [];
    const first = severable(leases);
    const a = instance(first.leases, 'a', timeline);
    const b = instance(leases, 'b', timeline);
    roles.push(a.role, b.role);
    await a.role.start();
    await b.role.start();
    expect(a.role.state).toBe('leader');
    expect(b.role.state).toBe('standby');
    // Several renewals later the leader still leads and the standby still waits.
    await new Promise((resolve) => setTimeout(resolve, TTL_MS * 2));
    expect([a.role.state, b.role.state]).toEqual(['leader', 'standby']);
    const killedAt = performance.now();
    first.kill();
    const term = await within(b.next.elected, { what: 'the standby elected', timeoutMs: TTL_MS * 5 });
    const tookOverIn = performance.now() - killedAt;
    expect(tookOverIn).toBeLessThan(TTL_MS * 3);
    const killed = await a.next.elected;
    expect(term.fencingToken).toBeGreaterThan(killed.fencingToken);
    // The cut-off leader could not renew: it stopped its work before the store could grant the lease.
    expect(timeline).toEqual([
      `a elected ${killed.fencingToken}`,
      'a deposed',
      `b elected ${term.fencingToken}`,
    ]);
    expect(a.role.state).toBe('standby');
  });

  it('releases on a graceful stop: the standby takes over at its next attempt, not after the ttl', async () => {
    const timeline: string[] = [];
    // A long ttl (renewed every 10 s): a takeover that waited for the ttl would time the test out.
    const a = instance(leases, 'c', timeline, 30_000);
    const b = instance(leases, 'd', timeline, 3_000);
    const [leader, standby] = [a.role, b.role];
    roles.push(leader, standby);
    await leader.start();
    await standby.start();
    expect([leader.state, standby.state]).toEqual(['leader', 'standby']);
    await leader.stop();
    expect(timeline).toContain('c deposed');
    await within(b.next.elected, { what: 'the standby elected after the release', timeoutMs: 15_000 });
    expect(standby.state).toBe('leader');
  });

  it('is deposed at once when its renewal is refused (another holder was granted the lease)', async () => {
    const timeline: string[] = [];
    const a = instance(leases, 'e', timeline);
    roles.push(a.role);
    await a.role.start();
    expect(a.role.state).toBe('leader');
    // An operator's hand, or a clock gone wrong: the store gives the lease to another.
    await leases.release(LEASE, 'e');
    expect(await leases.acquire(LEASE, 'intruder', 60_000)).not.toBeNull();
    await within(a.next.deposed, { what: 'the refused leader deposed', timeoutMs: TTL_MS * 2 });
    expect(a.role.state).toBe('standby');
    await leases.release(LEASE, 'intruder');
  });
});
