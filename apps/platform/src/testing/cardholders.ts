import { CARDS_OPTIONS, CardsModuleOptions } from '@cip/cards/service';
import type { CardVault } from '@cip/cards/vault';
import {
  ConsumerHost,
  INFRASTRUCTURE,
  Infrastructure,
  type ScopePorts,
  type StoreScope,
} from '@cip/shared/infrastructure';
import { waitFor } from '@cip/shared/testing';
import { UsersService } from '@cip/users/service';
import { DeliveryEngine } from '@cip/webhooks/service';
import { readdirSync, statSync } from 'node:fs';
import { join } from 'node:path';
import type { Harness } from './platform-harness';
import { openSplitCardVault, openSplitInfrastructure } from './split-engines';
import { cli, newUserBody, SANDBOX_KEY } from './platform-harness';

/** A response body kept for a grep (the PAN must appear in none). */
export type Seen = <T extends { text: string }>(response: T) => T;

/**
 * Integration order steps 2-4 over HTTP: a user, a full KYC completed and approved, the wallet it was given.
 * Optionally the user's phone too (tokenization's sms activation codes go to it).
 */
export async function activeUserWithWallet(
  h: Harness,
  options: { key?: string; seen?: Seen; phone?: { country: string; number: string } } = {},
): Promise<{ userId: string; walletId: string; email: string }> {
  const key = options.key ?? SANDBOX_KEY;
  const seen: Seen = options.seen ?? ((response) => response);
  const send = async (method: 'post' | 'put', path: string, body: object) =>
    seen(await h.http[method](path).set({ 'x-api-key': key, 'content-type': 'application/json' }).send(body));
  const user = await send('post', '/v1/users', newUserBody());
  expect(user.status).toBe(201);
  if (options.phone)
    expect((await send('put', `/v1/users/${user.body.id}/phone`, options.phone)).status).toBe(200);
  const kyc = await send('put', '/v1/kycs', { userId: user.body.id, type: 'full' });
  expect(kyc.status).toBe(201);
  expect((await send('post', `/v1/simulate/kyc/${kyc.body.id}/complete`, {})).status).toBe(200);
  expect((await send('post', `/v1/simulate/kyc/${kyc.body.id}/approve`, {})).body).toMatchObject({
    userActivated: true,
  });
  const wallets = seen(
    await h.http.get('/v1/wallets').query({ userId: user.body.id }).set({ 'x-api-key': key }),
  );
  expect(wallets.body.items).toEqual([expect.objectContaining({ status: 'active' })]);
  return { userId: user.body.id, walletId: wallets.body.items[0].id, email: user.body.email };
}

/**
 * The card's secrets (PAN, CVV2, expiry), read from the vault the way only the hosted reveal page may: in
 * process on the one-process platform, from DATA_DIR's stores on the split one (as the CLI reads them).
 */
export async function vaultSecretsOf(h: Harness, cardId: string) {
  return withCardVault(h, cardId, (vault, vaultRef) => vault.revealForHostedPage(vaultRef));
}

/** Sets the card's PIN in its vault (no /v1 operation sets one: the cardholder's PIN is the test's input). */
export async function setCardPin(h: Harness, cardId: string, pin: string): Promise<void> {
  await withCardVault(h, cardId, (vault, vaultRef) => vault.setPin(vaultRef, pin));
}

/**
 * `use` on the sandbox vault and the card's vault reference: the platform's own vault on the one-process
 * platform; on the split one, the vault and stores under DATA_DIR opened by this process (as the CLI opens
 * them: SQLite serializes it with the cards service's writes), closed after.
 */
async function withCardVault<T>(
  h: Harness,
  cardId: string,
  use: (vault: CardVault, vaultRef: string) => Promise<T>,
): Promise<T> {
  const vaultRefIn = async (infrastructure: Infrastructure) => {
    const [created] = await infrastructure.scope('sandbox').eventStore.readStream(cardId);
    return (created.data as { vaultRef: string }).vaultRef;
  };
  if (h.topology === 'one-process') {
    const vault = h.platform.app.get<CardsModuleOptions>(CARDS_OPTIONS).vault('sandbox');
    return use(vault, await vaultRefIn(h.platform.app.get<Infrastructure>(INFRASTRUCTURE)));
  }
  const infrastructure = await openSplitInfrastructure(h.dataDir);
  const vault = await openSplitCardVault(h.dataDir, 'sandbox');
  try {
    return await use(vault, await vaultRefIn(infrastructure));
  } finally {
    await vault.close();
    await infrastructure.close();
  }
}

/**
 * `use` on the sandbox scope of the platform's stores (its log, sealed or not): in process on the one-process
 * platform; on the split one, DATA_DIR's stores opened by this process, as the CLI opens them (what it appends
 * reaches the services as their own appends do).
 */
export async function withSandboxLog<T>(h: Harness, use: (log: ScopePorts) => Promise<T>): Promise<T> {
  return withScopeLog(h, 'sandbox', use);
}

/** `withSandboxLog` on any scope of the stores (`control`: distributors, keys, staff and the audit trail). */
export async function withScopeLog<T>(
  h: Harness,
  scope: StoreScope,
  use: (log: ScopePorts) => Promise<T>,
): Promise<T> {
  if (h.topology === 'one-process')
    return use(h.platform.app.get<Infrastructure>(INFRASTRUCTURE).scope(scope));
  const infrastructure = await openSplitInfrastructure(h.dataDir);
  try {
    return await use(infrastructure.scope(scope));
  } finally {
    await infrastructure.close();
  }
}

/** Every file under a directory (the SQLite files and their WAL/SHM companions, the secrets): for PAN greps. */
export function filesUnder(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const path = join(dir, name);
    return statSync(path).isDirectory() ? filesUnder(path) : [path];
  });
}

/**
 * A distributor's calls over /v1 with an API key (the default sandbox one unless given); every response goes
 * through `seen` when given. `harness` is read at each call, since specs start theirs in `beforeAll`.
 */
export function distributorCalls(harness: () => Harness, seen: Seen = (response) => response) {
  return {
    post: async (path: string, body: object = {}, key = SANDBOX_KEY) =>
      seen(
        await harness()
          .http.post(path)
          .set({ 'x-api-key': key, 'content-type': 'application/json' })
          .send(body),
      ),
    get: async (path: string, query: Record<string, string> = {}, key = SANDBOX_KEY) =>
      seen(await harness().http.get(path).query(query).set({ 'x-api-key': key })),
  };
}

/**
 * The operator's erasure of a user (of the harness's distributor unless given), as `cli users erase` makes
 * it: in process on the one-process platform, by the built CLI on DATA_DIR on the split one.
 */
export async function eraseAsOperator(
  h: Harness,
  userId: string,
  reason: string,
  distributorId = h.distributorId,
): Promise<void> {
  if (h.topology === 'split') {
    await cli(h.dataDir, [
      'users',
      'erase',
      '--user',
      userId,
      '--reason',
      reason,
      '--env',
      'sandbox',
      '--operator',
      'test',
    ]);
    return;
  }
  await h.platform.app.get(UsersService).eraseUser(
    {
      distributorId,
      environment: 'sandbox',
      requestId: 'operator-erasure',
      program: { allowedCountries: ['FR'], b2b: true, prepaid: false, kycImportEnabled: false },
    },
    userId,
    { erasedBy: 'operator:test', reason },
  );
}

/**
 * Resolves once the platform's issuer is linked to the sandbox card network (it connects just after the
 * network listens; in the split topology they are two processes, started together): what the authorizations
 * service reports on its /health (`card-network:sandbox`), on both topologies.
 */
export async function issuerLinked(h: Harness): Promise<void> {
  const url = `${h.systemUrl('authorizations')}/health`;
  await waitFor(
    async () => {
      const health = (await (await fetch(url)).json()) as { checks?: Record<string, { linked?: boolean }> };
      return health.checks?.['card-network:sandbox']?.linked === true;
    },
    {
      what: 'the issuer linked to the sandbox network (/health of the authorizations service)',
      // The link retries with a doubling delay (up to 10 s) while the network is not listening yet.
      intervalMs: 50,
    },
  );
}

/**
 * A user's status changed by staff (an admin: every transition's role) through the operator API, on both
 * topologies: `POST /operator/v1/environments/{environment}/users/{userId}/status`. The response is returned
 * unchecked, so a test can expect its refusal (409 invalid_state_transition).
 */
export async function changeUserStatusAsOperator(
  h: Harness,
  userId: string,
  status: 'active' | 'frozen' | 'disabled' | 'revoked',
  reason = 'TEST user status',
) {
  return h.operatorHttp
    .post(`/operator/v1/environments/sandbox/users/${userId}/status`)
    .set((await h.operatorAdmin()).headers)
    .set('content-type', 'application/json')
    .send({ status, reason });
}

/**
 * The wallet once the ledger saga has applied every authorization written so far: on the one-process
 * platform every Event is read (and delivered) first; on the split topology, where the saga runs in another
 * process, the wallet is read until it shows `expected` (what a distributor polling it sees). Then checked.
 */
export async function walletSettled(
  h: Harness,
  walletId: string,
  expected: { balance: number; availableBalance: number },
): Promise<void> {
  const wallet = async () =>
    (await h.http.get(`/v1/wallets/${walletId}`).set({ 'x-api-key': SANDBOX_KEY })).body as Record<
      string,
      unknown
    >;
  if (h.topology === 'one-process') {
    await h.platform.app.get(ConsumerHost).drain('sandbox');
    await h.platform.app.get(ConsumerHost).drain('sandbox');
    await h.platform.app.get(DeliveryEngine).idle();
  } else {
    await waitFor(
      async () => {
        const { balance, availableBalance } = await wallet();
        return balance === expected.balance && availableBalance === expected.availableBalance;
      },
      { what: `the wallet at ${JSON.stringify(expected)}`, intervalMs: 50 },
    );
  }
  expect(await wallet()).toMatchObject(expected);
}
