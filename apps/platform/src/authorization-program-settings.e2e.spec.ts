import { ConsumerHost } from '@cip/shared/infrastructure';
import { CLEARING_FILE_SINK, type ClearingFile, type ClearingFileSink } from '@cip/simulator/contract';
import { waitFor } from '@cip/shared/testing';
import { execFile } from 'node:child_process';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { activeUserWithWallet, distributorCalls, issuerLinked } from './testing/cardholders';
import { Harness, startHarness } from './testing/platform-harness';
import { splitEngineEnv } from './testing/split-engines';
import { itOnOneProcess } from './testing/topology';

/** The built CLI, as `npm run cli` runs it (the e2e project's global setup builds dist/ first). */
const CLI_MAIN = join(__dirname, '..', '..', '..', 'dist/apps/cli/src/main.js');

// The program's authorization settings, set by the operator with the CLI (another process, on the platform's
// data directory) while the platform runs: the next payment over the sandbox card network is priced with
// them, without a restart. What is checked is what the distributor sees: the authorization's amount, fee
// and expiry, and the wallet's balance.

describe('program authorization settings set with the CLI, applied by the running platform', () => {
  let h: Harness;
  const { post, get } = distributorCalls(() => h);
  const merchant = { name: 'Corner Cafe', city: 'Paris', country: 'FR', mcc: '5814' };
  const atm = { name: 'Gare du Nord ATM', city: 'Paris', country: 'FR', mcc: '6011' };

  beforeAll(async () => {
    h = await startHarness();
    await issuerLinked(h);
  });
  afterAll(async () => {
    await h?.close();
  });

  /** `npm run cli -- <argv> --json` on the platform's data directory, in its own process. */
  /** Each test runs the built CLI as its own process several times (about a second each on a busy machine). */
  const CLI_TEST_TIMEOUT_MS = 60_000;

  async function cliJson(...argv: string[]) {
    const { stdout } = await promisify(execFile)(
      process.execPath,
      [CLI_MAIN, ...argv, '--json', '--data-dir', h.dataDir],
      // On the split topology over PostgreSQL, its stores (as the operator of that deployment sets them).
      { env: { ...process.env, ...splitEngineEnv(h.dataDir) } },
    );
    return JSON.parse(stdout);
  }

  /**
   * `npm run cli -- distributors configure <the harness's distributor> ...`: the issuer reads the change at
   * the next authorization or clearing line, wherever it runs (no wait: that is what is checked).
   */
  async function configure(...flags: string[]) {
    await cliJson('distributors', 'configure', h.distributorId, ...flags);
  }

  async function fundedCard(usd: number) {
    const holder = await activeUserWithWallet(h);
    const card = await post('/v1/cards', { userId: holder.userId, type: 'virtual' });
    expect(card.status).toBe(201);
    expect((await post('/v1/simulate/deposit', { walletId: holder.walletId, amount: usd })).status).toBe(201);
    return { cardId: card.body.id as string, walletId: holder.walletId };
  }

  async function pay(cardId: string, amount: number, currency: string, at = merchant) {
    const response = await post('/v1/simulate/authorization', { cardId, amount, currency, merchant: at });
    expect(response.status).toBe(200);
    expect(response.body.network).toMatchObject({ responseCode: '00' });
    const shown = await get(`/v1/authorizations/${response.body.authorization.id}`);
    expect(shown.status).toBe(200);
    return shown.body;
  }

  it(
    'prices the next payment with the fees and rates set, and the one after with the rate changed',
    async () => {
      const { cardId, walletId } = await fundedCard(100);

      await configure(
        '--fee-fx',
        '3%',
        '--fee-auth',
        '0.25USD',
        '--fee-atm',
        '2000000',
        '--fx-rate',
        'EUR=1.2',
        '--hold-expiry-days',
        '3',
      );
      // 10.00 EUR at 1.2 is 12.00 USD; the fx fee is 3% of it (0.36 USD), the auth fee 0.25 USD.
      const first = await pay(cardId, 10, 'EUR');
      expect(first).toMatchObject({
        status: 'confirmed',
        amount: 12,
        currency: 'USD',
        merchantAmount: '10.00',
        merchantCurrency: 'EUR',
        fee: { fx: 360_000, auth: 250_000 },
      });
      expect(Date.parse(first.expiresAt) - Date.parse(first.decidedAt)).toBe(3 * 24 * 60 * 60 * 1000);

      await configure('--fx-rate', 'EUR=1.1', '--fee-fx', '1.5%');
      // 10.00 EUR at 1.1 is 11.00 USD; 1.5% of it is 0.165 USD, half up to the cent: 0.17 USD.
      const second = await pay(cardId, 10, 'EUR');
      expect(second).toMatchObject({
        amount: 11,
        merchantAmount: '10.00',
        fee: { fx: 170_000, auth: 250_000 },
      });

      // A USD cash withdrawal: no fx fee, the atm and auth fees.
      const cash = await pay(cardId, 20, 'USD', atm);
      expect(cash).toMatchObject({ amount: 20, fee: { atm: 2_000_000, auth: 250_000 } });
      expect(cash.fee.fx).toBeUndefined();

      const held = 12 + 0.36 + 0.25 + (11 + 0.17 + 0.25) + (20 + 2 + 0.25);
      const wallet = await get(`/v1/wallets/${walletId}`);
      expect(wallet.body.availableBalance).toBeCloseTo(100 - held, 6);
    },
    CLI_TEST_TIMEOUT_MS,
  );

  it(
    'declines a merchant currency whose rate the operator removed',
    async () => {
      const { cardId } = await fundedCard(50);
      await configure('--fx-rate', 'GBP=none');
      const response = await post('/v1/simulate/authorization', {
        cardId,
        amount: 5,
        currency: 'GBP',
        merchant,
      });
      expect(response.status).toBe(200);
      expect(response.body.network.responseCode).not.toBe('00');
      const declined = await get(`/v1/authorizations/${response.body.authorization.id}`);
      expect(declined.body).toMatchObject({
        status: 'rejected',
        declineReasonCode: 'other',
        merchantCurrency: 'GBP',
        fee: {},
      });
    },
    CLI_TEST_TIMEOUT_MS,
  );

  const clear = async (body: object): Promise<ClearingFile> => {
    const response = await post('/v1/simulate/authorization/clearing', body);
    expect(response.status).toBe(200);
    expect(response.body.delivered).toBe(true);
    return response.body.file;
  };
  const clearingExceptionsOf = async (fileId: string) =>
    (await cliJson('authorizations', 'clearing-exceptions', '--env', 'sandbox', '--file', fileId)).items;

  it(
    "clears within the program's tolerance, and lists a line beyond it as a clearing exception",
    async () => {
      const { cardId, walletId } = await fundedCard(100);
      await configure('--clearing-tolerance', '5%', '--fee-auth', '0');
      const authorization = await pay(cardId, 20, 'USD');

      // 21.01 is more than 5% above 20.00: an exception, nothing cleared.
      const refused = await clear({ authorizationId: authorization.id, amount: 21.01 });
      expect((await get(`/v1/authorizations/${authorization.id}`)).body).toMatchObject({
        status: 'confirmed',
        clearedAmount: 0,
      });
      expect(
        await cliJson('authorizations', 'clearing-exceptions', '--env', 'sandbox', '--file', refused.fileId),
      ).toEqual({
        items: [
          expect.objectContaining({
            fileId: refused.fileId,
            sequence: 1,
            kind: 'presentment',
            cardId,
            amountMinor: 2101,
            currency: 'USD',
            code: expect.any(String),
            reason: expect.stringContaining(authorization.id),
          }),
        ],
        hasMore: false,
      });

      // 21.00 is exactly 5% above: cleared, tip included.
      await clear({ authorizationId: authorization.id, amount: 21 });
      expect((await get(`/v1/authorizations/${authorization.id}`)).body).toMatchObject({
        status: 'cleared',
        clearedAmount: 21,
      });
      // And the wallet paid it, tip included: nothing held any more (the ledger saga posts it: drained in
      // process; on split, where it runs in the authorizations service, read until the wallet shows it).
      const paidOff = { balance: 79, availableBalance: 79 };
      if (h.topology === 'one-process') {
        await h.platform.app.get(ConsumerHost).drain('sandbox');
        await h.platform.app.get(ConsumerHost).drain('sandbox');
      } else {
        await waitFor(
          async () => {
            const { balance, availableBalance } = (await get(`/v1/wallets/${walletId}`)).body;
            return balance === paidOff.balance && availableBalance === paidOff.availableBalance;
          },
          { what: `the wallet at ${JSON.stringify(paidOff)}`, intervalMs: 50 },
        );
      }
      expect((await get(`/v1/wallets/${walletId}`)).body).toMatchObject(paidOff);
    },
    CLI_TEST_TIMEOUT_MS,
  );

  itOnOneProcess(
    'delivers the file again through the in-process clearing sink (no /v1 or operator way re-imports one)',
    'lists a line beyond the tolerance once however often its file is imported',
    async () => {
      const { cardId } = await fundedCard(100);
      await configure('--clearing-tolerance', '5%');
      const authorization = await pay(cardId, 20, 'USD');
      const refused = await clear({ authorizationId: authorization.id, amount: 21.01 });
      expect(await clearingExceptionsOf(refused.fileId)).toHaveLength(1);

      await h.platform.app.get<ClearingFileSink>(CLEARING_FILE_SINK).deliver('sandbox', refused);
      expect(await clearingExceptionsOf(refused.fileId)).toHaveLength(1);
      expect((await get(`/v1/authorizations/${authorization.id}`)).body).toMatchObject({
        status: 'confirmed',
        clearedAmount: 0,
      });
    },
    CLI_TEST_TIMEOUT_MS,
  );
});
