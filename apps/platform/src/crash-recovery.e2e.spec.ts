import { READ_MODELS } from '@cip/platform/registry';
import { openEmbeddedInfrastructure, verifyProjections } from '@cip/shared/infrastructure';
import { deadline, waitFor } from '@cip/shared/testing';
import type { ChildProcess } from 'node:child_process';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { discardPlatform, jsonCaller, startDurablePlatform } from './testing/kill-nine';
import { exited, freePort } from '@cip/platform/topologies';

const KEY = 'sk_sandbox_crashTestKeyCCCCCCCCCCCCCCCCCCCCCCCCCC';

describe('durability: kill -9 in the middle of user creations', () => {
  const dataDir = mkdtempSync(join(tmpdir(), 'cip-crash-'));
  let child: ChildProcess | undefined;

  afterAll(() => discardPlatform(child, dataDir));

  it('keeps every acknowledged user and idempotent outcome, and every read model equals a rebuild from the log', async () => {
    const port = await freePort();
    const base = `http://127.0.0.1:${port}`;
    const headers = { 'x-api-key': KEY, 'content-type': 'application/json' };
    child = await startDurablePlatform(dataDir, port, KEY);

    const acknowledged = new Map<string, string>();
    /** Acknowledged creations sent with an idempotency key: what a retry sends again, and what it must get. */
    const keyed: { key: string; body: string; id: string; answer: unknown }[] = [];
    /** Creations in flight when the process died: written whole or not at all, never half. */
    const unanswered: string[] = [];
    let sent = 0;
    let killed = false;
    // The writers stop when they kill the process, once enough was acknowledged.
    const inTime = deadline({ what: '200 acknowledged user creations to kill the platform on' });
    const worker = async (w: number) => {
      while (!killed) {
        inTime();
        const email = `crash-${w}-${sent++}@example.com`;
        // Half the writers send an idempotency key, as integrators do.
        const key = w % 2 === 0 ? `crash-key-${email}` : undefined;
        const body = JSON.stringify({ email, firstName: 'Kill', lastName: 'Nine', countryOfResidence: 'FR' });
        try {
          const response = await fetch(`${base}/v1/users`, {
            method: 'POST',
            headers: key ? { ...headers, 'x-idempotency-key': key } : headers,
            body,
          });
          if (response.status === 201) {
            const answer = (await response.json()) as { id: string };
            acknowledged.set(answer.id, email);
            if (key) keyed.push({ key, body, id: answer.id, answer });
          }
        } catch {
          // The process is gone: a request in flight may or may not have been written; it was not acknowledged.
          unanswered.push(email);
          return;
        }
        if (acknowledged.size >= 200 && !killed) {
          killed = true;
          child!.kill('SIGKILL');
        }
      }
    };
    await Promise.all(Array.from({ length: 16 }, (_, w) => worker(w)));
    await exited(child);
    expect(child.signalCode).toBe('SIGKILL');
    expect(acknowledged.size).toBeGreaterThanOrEqual(200);

    child = await startDurablePlatform(dataDir, port, KEY);
    // The email reservation and the user are appended in one transaction: a creation the kill interrupted left
    // both or neither. Creating its email again either succeeds (nothing was written) or is refused naming a
    // user that exists with that email; a reservation without its user would name a user that does not exist.
    // (Checked first: a reservation whose owner never came to exist is taken over 30 s later.)
    expect(unanswered.length).toBeGreaterThan(0);
    for (const email of unanswered) {
      const body = JSON.stringify({ email, firstName: 'Kill', lastName: 'Again', countryOfResidence: 'FR' });
      const again = await fetch(`${base}/v1/users`, { method: 'POST', headers, body });
      if (again.status === 201) continue;
      expect(again.status).toBe(409);
      const { error } = (await again.json()) as { error: { code: string; message: string } };
      expect(error.code).toBe('duplicate_user_error');
      const owner = /usr-[\w-]+/.exec(error.message)?.[0];
      const user = await fetch(`${base}/v1/users/${owner}`, { headers });
      expect(user.status).toBe(200);
      expect(((await user.json()) as { email: string }).email).toBe(email);
    }
    for (const [id, email] of acknowledged) {
      const response = await fetch(`${base}/v1/users/${id}`, { headers });
      expect(response.status).toBe(200);
      expect(((await response.json()) as { email: string }).email).toBe(email);
    }
    // A list waits for the projection to catch up with the log, so it must hold every acknowledged user.
    const listUsers = async () => {
      const ids = new Set<string>();
      for (let page = 0; ; page++) {
        const response = await fetch(`${base}/v1/users?limit=100&fromPage=${page}`, { headers });
        const body = (await response.json()) as { items: { id: string }[]; hasMore: boolean };
        body.items.forEach((u) => ids.add(u.id));
        if (!body.hasMore) return ids;
      }
    };
    const listed = await listUsers();
    for (const id of acknowledged.keys()) expect(listed.has(id)).toBe(true);
    // Each acknowledged idempotent creation, retried with its key after the restart, gets the same answer
    // and creates nothing: the stored outcome was durable before the response was sent.
    expect(keyed.length).toBeGreaterThan(0);
    for (const { key, body, answer } of keyed) {
      const retry = await fetch(`${base}/v1/users`, {
        method: 'POST',
        headers: { ...headers, 'x-idempotency-key': key },
        body,
      });
      expect(retry.status).toBe(201);
      expect(retry.headers.get('x-idempotent-replayed')).toBe('true');
      expect(await retry.json()).toEqual(answer);
    }
    expect(await listUsers()).toEqual(listed);
    await fetch(`${base}/v1/events?limit=1`, { headers });

    child.kill('SIGTERM');
    await exited(child);

    // Every read model the platform keeps (the ones the CLI verifies) must equal a rebuild from the log.
    const infrastructure = openEmbeddedInfrastructure({ dataDir });
    try {
      const differences = await verifyProjections(infrastructure.scope('sandbox'), READ_MODELS);
      expect(differences.map((d) => d.collection)).toEqual(expect.arrayContaining(['users', 'events']));
      expect(differences.filter((d) => d.missing.length + d.extra.length + d.different.length > 0)).toEqual(
        [],
      );
      const users = differences.find((d) => d.collection === 'users')!;
      expect(users.total).toBeGreaterThanOrEqual(acknowledged.size);
      expect(differences.find((d) => d.collection === 'events')!.total).toBe(users.total);
    } finally {
      await infrastructure.close();
    }
  }, 150_000);
});

describe('durability: kill -9 in the middle of deposits and withdrawals on one wallet', () => {
  const dataDir = mkdtempSync(join(tmpdir(), 'cip-crash-ledger-'));
  let child: ChildProcess | undefined;

  afterAll(() => discardPlatform(child, dataDir));

  it('keeps every acknowledged movement, settles each withdrawal once, and the balance is the sum of the postings', async () => {
    const port = await freePort();
    const base = `http://127.0.0.1:${port}`;
    const call = jsonCaller(base, KEY);
    child = await startDurablePlatform(dataDir, port, KEY);

    // An active user with a funded wallet.
    const user = await call('POST', '/v1/users', {
      email: 'ledger@example.com',
      firstName: 'Kill',
      lastName: 'Nine',
      countryOfResidence: 'FR',
    });
    const kyc = await call('PUT', '/v1/kycs', { userId: user.body.id, type: 'full' });
    expect((await call('POST', `/v1/simulate/kyc/${kyc.body.id}/complete`)).status).toBe(200);
    expect((await call('POST', `/v1/simulate/kyc/${kyc.body.id}/approve`)).status).toBe(200);
    const wallets = await call('GET', `/v1/wallets?userId=${user.body.id}`);
    const walletId = (wallets.body.items as { id: string }[])[0].id;
    expect((await call('POST', '/v1/simulate/deposit', { walletId, amount: 1000 })).status).toBe(201);

    // Many writers on that one wallet, deposits and withdrawals mixed, until the process is killed.
    const acknowledged = new Map<string, 'deposit' | 'withdrawal'>();
    let killed = false;
    const inTime = deadline({ what: '120 acknowledged movements to kill the platform on' });
    const worker = async (w: number) => {
      for (let i = 0; !killed; i++) {
        inTime();
        const withdrawal = (w + i) % 2 === 0;
        try {
          const answer = withdrawal
            ? await call('POST', `/v1/wallets/${walletId}/withdrawals`, {
                amount: 1,
                toAddress: '0x000000000000000000000000000000000000dEaD',
              })
            : await call('POST', '/v1/simulate/deposit', { walletId, amount: 1 });
          if (answer.status === 201)
            acknowledged.set(answer.body.id as string, withdrawal ? 'withdrawal' : 'deposit');
        } catch {
          return; // the process is gone: what was in flight was not acknowledged
        }
        if (acknowledged.size >= 120 && !killed) {
          killed = true;
          child!.kill('SIGKILL');
        }
      }
    };
    await Promise.all(Array.from({ length: 12 }, (_, w) => worker(w)));
    await exited(child);
    expect(child.signalCode).toBe('SIGKILL');

    child = await startDurablePlatform(dataDir, port, KEY);
    for (const [id, type] of acknowledged) {
      const transaction = await call('GET', `/v1/transactions/${id}`);
      expect(transaction.status).toBe(200);
      expect(transaction.body.type).toBe(type);
    }
    // The payouts resume after the restart; once none is pending, every withdrawal is paid exactly once.
    const movements = async () => {
      const all: { type: string; status: string; amount: number }[] = [];
      for (let page = 0; ; page++) {
        const list = await call('GET', `/v1/transactions?walletId=${walletId}&limit=100&fromPage=${page}`);
        all.push(...(list.body.items as { type: string; status: string; amount: number }[]));
        if (!list.body.hasMore) return all;
      }
    };
    let all = await movements();
    await waitFor(async () => !(all = await movements()).some((t) => t.status === 'pending'), {
      what: 'the payouts resumed after the restart to leave no withdrawal pending',
      timeoutMs: 10_000,
      intervalMs: 100,
    });
    const deposited = all.filter((t) => t.type === 'deposit').reduce((sum, t) => sum + t.amount, 0);
    const paid = all.filter((t) => t.type === 'withdrawal' && t.status === 'completed').length;
    const wallet = await call('GET', `/v1/wallets/${walletId}`);
    expect(wallet.body).toMatchObject({
      balance: deposited - paid,
      availableBalance: deposited - paid,
      pendingHolds: 0,
    });
    expect(paid).toBe(all.filter((t) => t.type === 'withdrawal').length);

    child.kill('SIGTERM');
    await exited(child);
    const infrastructure = openEmbeddedInfrastructure({ dataDir });
    try {
      const differences = await verifyProjections(infrastructure.scope('sandbox'), READ_MODELS);
      expect(differences.filter((d) => d.missing.length + d.extra.length + d.different.length > 0)).toEqual(
        [],
      );
    } finally {
      await infrastructure.close();
    }
  }, 150_000);
});
