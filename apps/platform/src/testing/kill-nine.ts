import type { ChildProcess } from 'node:child_process';
import { rmSync } from 'node:fs';
import { exited, listening, spawnPlatform } from '@cip/platform/topologies';

// What the kill -9 tests share: the built platform as a real process on a data directory they keep
// across a SIGKILL and a restart, and a JSON client of it.

/** Starts the built platform on `dataDir` (quiet, no rate limit, `apiKey` bootstrapped); resolves once it listens. */
export function startDurablePlatform(
  dataDir: string,
  port: number,
  apiKey: string,
  /** More variables (the card network's address). */
  env: NodeJS.ProcessEnv = {},
): Promise<ChildProcess> {
  return listening(
    spawnPlatform({
      DATA_DIR: dataDir,
      PORT: String(port),
      LOG_LEVEL: 'silent',
      BOOTSTRAP_SANDBOX_API_KEY: apiKey,
      RATE_LIMIT_PER_SECOND: '1000000',
      ...env,
    }),
  );
}

/** After the test: kills the process if it is still running, waits for its exit, removes its data directory. */
export async function discardPlatform(child: ChildProcess | undefined, dataDir: string): Promise<void> {
  if (child && child.exitCode === null) {
    child.kill('SIGKILL');
    await exited(child);
  }
  rmSync(dataDir, { recursive: true, force: true });
}

/** Calls the platform at `base` with the API key: the status and the JSON body of each answer. */
export function jsonCaller(base: string, apiKey: string) {
  const headers = { 'x-api-key': apiKey, 'content-type': 'application/json' };
  return async (method: string, path: string, body?: unknown) => {
    const response = await fetch(`${base}${path}`, {
      method,
      headers,
      body: body === undefined ? undefined : JSON.stringify(body),
    });
    return { status: response.status, body: (await response.json()) as Record<string, unknown> };
  };
}

/** Over HTTP with `call`: a user whose full KYC is approved (so the wallets context has opened its wallet). */
export async function approvedUser(call: ReturnType<typeof jsonCaller>, email: string): Promise<string> {
  const user = await call('POST', '/v1/users', {
    email,
    firstName: 'Kill',
    lastName: 'Nine',
    countryOfResidence: 'FR',
  });
  if (user.status !== 201) throw new Error(`The user creation answered ${user.status}`);
  const userId = String(user.body.id);
  const kyc = await call('PUT', '/v1/kycs', { userId, type: 'full' });
  await call('POST', `/v1/simulate/kyc/${String(kyc.body.id)}/complete`, {});
  const approved = await call('POST', `/v1/simulate/kyc/${String(kyc.body.id)}/approve`, {});
  if (approved.status !== 200) throw new Error(`KYC approval answered ${approved.status}`);
  return userId;
}

/**
 * Over HTTP with `call`: an approved user (`approvedUser`), its wallet funded with `deposit` (USD) and a
 * virtual card: the cardholder a kill -9 test pays with.
 */
export async function fundedCardholder(
  call: ReturnType<typeof jsonCaller>,
  email: string,
  deposit: number,
): Promise<{ userId: string; walletId: string; card: Record<string, unknown> }> {
  const userId = await approvedUser(call, email);
  const wallets = await call('GET', `/v1/wallets?userId=${userId}`);
  const walletId = (wallets.body.items as { id: string }[])[0].id;
  const funded = await call('POST', '/v1/simulate/deposit', { walletId, amount: deposit });
  if (funded.status !== 201) throw new Error(`The deposit answered ${funded.status}`);
  const card = await call('POST', '/v1/cards', { userId, type: 'virtual' });
  if (card.status !== 201) throw new Error(`The card creation answered ${card.status}`);
  return { userId, walletId, card: card.body };
}

/** How many cards the users have, every page of `GET /v1/cards` read (a second run of a keyed creation shows here). */
export async function cardsOf(
  call: ReturnType<typeof jsonCaller>,
  userIds: readonly string[],
): Promise<number> {
  let total = 0;
  for (const userId of userIds) {
    for (let page = 0; ; page++) {
      const list = await call('GET', `/v1/cards?userId=${userId}&limit=100&fromPage=${page}`);
      total += (list.body.items as unknown[]).length;
      if (!list.body.hasMore) break;
    }
  }
  return total;
}

/** A keyed creation sent before a kill: its body, and its answer when one came before the kill. */
export interface SentCreation {
  body: string;
  answer?: { status: number; body: unknown };
}

/**
 * Keyed creations from `workers` concurrent callers, each sending the next key as soon as its last one is
 * answered, until `killAfter` have been answered: then `kill()` (the kill -9 of the process holding the
 * claims) and every caller stops at its first unanswered request. Every key sent, with what it got.
 */
export async function keyedCreationsUntilKill(options: {
  post(key: string, body: string): Promise<Response>;
  key(n: number): string;
  body(n: number): string;
  killAfter: number;
  workers: number;
  kill(): unknown;
  /** Checked before each request (a `deadline` of @cip/shared/testing). */
  inTime(): void;
}): Promise<Map<string, SentCreation>> {
  const sent = new Map<string, SentCreation>();
  let answered = 0;
  let killed = false;
  let n = 0;
  const worker = async () => {
    while (!killed) {
      options.inTime();
      const i = n++;
      const key = options.key(i);
      const body = options.body(i);
      sent.set(key, { body });
      try {
        const response = await options.post(key, body);
        sent.set(key, { body, answer: { status: response.status, body: await response.json() } });
        answered++;
      } catch {
        return; // the process is gone: this creation was not answered
      }
      if (answered >= options.killAfter && !killed) {
        killed = true;
        await options.kill();
      }
    }
  };
  await Promise.all(Array.from({ length: options.workers }, () => worker()));
  return sent;
}
