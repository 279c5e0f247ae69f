import { ConsumerHost } from '@cip/shared/infrastructure';
import { waitFor } from '@cip/shared/testing';
import { UsersService } from '@cip/users/service';
import { LocalChain, localChainKey, startLocalChain } from '@cip/wallets/chain/testing';
import { DepositWatchers, WITHDRAWAL_PAYOUT_GROUP, WithdrawalPayouts } from '@cip/wallets/service';
import { Harness, newUserBody, SANDBOX_KEY, startHarness } from './testing/platform-harness';

const json = { 'content-type': 'application/json' };
const sandbox = { 'x-api-key': SANDBOX_KEY };
const CONFIRMATIONS = 3;
const USDC = 1_000_000n;

/**
 * Integration order steps 2-4 against a real EVM chain (ganache, in-process, offline): a verified user's
 * wallet gets a deposit address on that chain, a USDC transfer to it is credited once it has the
 * confirmations, exactly once, and a withdrawal is paid on chain by the hot wallet.
 */
describe('USDC funding on a local EVM chain', () => {
  let chain: LocalChain;
  let h: Harness;
  const hotWalletKey = localChainKey('account-0');

  beforeAll(async () => {
    chain = await startLocalChain();
    await chain.transfer(chain.accounts[0].address, 1_000n * USDC);
    h = await startHarness({
      chains: {
        sandbox: {
          rpcUrl: chain.rpcUrl,
          chainId: chain.chainId,
          usdcContractAddress: chain.tokenAddress,
          confirmations: CONFIRMATIONS,
          // The test scans the chain itself (pollOnce); the timer stays out of the way.
          pollIntervalMs: 3_600_000,
          maxBlockRange: 1_000,
          hotWalletPrivateKey: hotWalletKey,
        },
      },
    });
  }, 30_000);
  afterAll(async () => {
    await h?.close();
    await chain?.stop();
  });

  const scanChain = () => h.platform.app.get(DepositWatchers).pollOnce('sandbox');
  const getWallet = async (walletId: string) =>
    (await h.http.get(`/v1/wallets/${walletId}`).set(sandbox)).body;
  /** The saga hands a withdrawal to the payout runner; the payout is done once the runner is idle. */
  const paidOut = async () => {
    await h.platform.app.get(ConsumerHost).drain('sandbox', [WITHDRAWAL_PAYOUT_GROUP], 30_000);
    await h.platform.app.get(WithdrawalPayouts).idle();
  };
  const eventsOf = async (userId: string, eventName: string) =>
    (await h.http.get('/v1/events').query({ userId, eventName, limit: 100 }).set(sandbox)).body.items;

  /** Steps 2-3 of the integration order: a user verified through the hosted KYC, hence active with a wallet. */
  async function verifiedUserWallet() {
    const user = await h.http
      .post('/v1/users')
      .set({ ...sandbox, ...json })
      .send(newUserBody());
    const kyc = await h.http
      .put('/v1/kycs')
      .set({ ...sandbox, ...json })
      .send({ userId: user.body.id, type: 'full' });
    for (const outcome of ['complete', 'approve']) {
      expect((await h.http.post(`/v1/simulate/kyc/${kyc.body.id}/${outcome}`).set(sandbox)).status).toBe(200);
    }
    const wallets = await h.http.get('/v1/wallets').query({ userId: user.body.id }).set(sandbox);
    expect(wallets.body.items).toHaveLength(1);
    return { userId: user.body.id as string, wallet: wallets.body.items[0] };
  }

  it('credits a transfer to the deposit address once it has the confirmations, exactly once', async () => {
    const { userId, wallet } = await verifiedUserWallet();
    expect(wallet).toMatchObject({ chain: `evm:${chain.chainId}`, currency: 'USDC', balance: 0 });
    expect(wallet.depositAddress).toMatch(/^0x[0-9a-fA-F]{40}$/);

    const transfer = await chain.transfer(wallet.depositAddress, 25_500_000n);
    await chain.mine(CONFIRMATIONS - 2);
    await scanChain();
    expect((await getWallet(wallet.id)).balance).toBe(0); // one confirmation short

    await chain.mine(1);
    await scanChain();
    expect(await getWallet(wallet.id)).toMatchObject({ balance: 25.5, availableBalance: 25.5 });

    await chain.mine(5);
    await scanChain();
    expect((await getWallet(wallet.id)).balance).toBe(25.5);

    const confirmed = await eventsOf(userId, 'blockchainTransaction.confirmed');
    expect(confirmed).toHaveLength(1);
    expect(confirmed[0].data).toMatchObject({
      walletId: wallet.id,
      type: 'deposit',
      amount: 25_500_000,
      transactionHash: transfer.hash,
      blockNumber: transfer.blockNumber,
    });
    const balances = await eventsOf(userId, 'balance.updated');
    expect(balances.map((e: { data: { balance: number } }) => e.data.balance)).toContain(25.5);
  });

  it('ignores transfers of the token to addresses that are not deposit addresses', async () => {
    const { wallet } = await verifiedUserWallet();
    await chain.transfer(chain.accounts[2].address, 7n * USDC);
    await chain.mine(CONFIRMATIONS);
    await scanChain();
    expect((await getWallet(wallet.id)).balance).toBe(0);
  });

  it('pays a withdrawal on chain from the hot wallet and debits the wallet', async () => {
    const { userId, wallet } = await verifiedUserWallet();
    await chain.transfer(wallet.depositAddress, 40n * USDC);
    await chain.mine(CONFIRMATIONS);
    await scanChain();
    expect((await getWallet(wallet.id)).balance).toBe(40);

    const recipient = chain.accounts[1].address;
    const before = await chain.tokenBalance(recipient);
    const withdrawal = await h.http
      .post(`/v1/wallets/${wallet.id}/withdrawals`)
      .set({ ...sandbox, ...json })
      .send({ amount: 12.25, toAddress: recipient });
    expect(withdrawal.status).toBe(201);
    await paidOut();

    expect(await chain.tokenBalance(recipient)).toBe(before + 12_250_000n);
    expect(await getWallet(wallet.id)).toMatchObject({
      balance: 27.75,
      availableBalance: 27.75,
      pendingHolds: 0,
    });
    const [paid] = await eventsOf(userId, 'withdrawal.confirmed');
    expect(paid.data.hash).toMatch(/^0x[0-9a-f]{64}$/);
    const receipt = await chain.client.getTransactionReceipt({ hash: paid.data.hash });
    expect(receipt.status).toBe('success');
    expect(paid.data.blockHeight).toBe(Number(receipt.blockNumber));
    expect(JSON.parse(paid.data.rawTxReceipt)).toMatchObject({ transactionHash: paid.data.hash });
  }, 30_000);

  it('rejects a withdrawal the hot wallet cannot pay, and gives the money back', async () => {
    const { userId, wallet } = await verifiedUserWallet();
    await chain.transfer(wallet.depositAddress, 5_000n * USDC);
    await chain.mine(CONFIRMATIONS);
    await scanChain();
    const balance = (await getWallet(wallet.id)).balance;
    expect(balance).toBe(5_000);

    // More than the hot wallet holds (it was funded with 1,000 USDC).
    const withdrawal = await h.http
      .post(`/v1/wallets/${wallet.id}/withdrawals`)
      .set({ ...sandbox, ...json })
      .send({ amount: 2_000, toAddress: chain.accounts[1].address });
    expect(withdrawal.status).toBe(201);
    await paidOut();

    const [rejected] = await eventsOf(userId, 'withdrawal.rejected');
    expect(rejected.data).toMatchObject({ hash: null });
    expect(rejected.data.reason).toMatch(/balance|insufficient/i);
    expect(await getWallet(wallet.id)).toMatchObject({
      balance: 5_000,
      availableBalance: 5_000,
      pendingHolds: 0,
    });
  }, 30_000);
});

/**
 * Money a user sends is never missed: through the whole platform, with its own watcher polling on its timer
 * (1 confirmation), many rounds of "a new user is activated, its wallet provisioned, and a transfer sent to
 * the deposit address at once", while empty blocks keep being mined, each credit exactly once.
 */
describe('deposits racing wallet creation and new blocks on a local EVM chain', () => {
  const ROUNDS = 60;
  let chain: LocalChain;
  let h: Harness;

  beforeAll(async () => {
    chain = await startLocalChain();
    h = await startHarness({
      chains: {
        sandbox: {
          rpcUrl: chain.rpcUrl,
          chainId: chain.chainId,
          usdcContractAddress: chain.tokenAddress,
          confirmations: 1,
          pollIntervalMs: 10,
          maxBlockRange: 1_000,
          hotWalletPrivateKey: localChainKey('account-0'),
        },
      },
    });
  }, 30_000);
  afterAll(async () => {
    await h?.close();
    await chain?.stop();
  });

  it('credits every transfer sent as soon as the wallet exists exactly once, while blocks keep coming', async () => {
    const caller = {
      distributorId: h.platform.distributorId,
      environment: 'sandbox' as const,
      requestId: 'deposit-race',
      program: { allowedCountries: ['FR'], b2b: false, prepaid: false, kycImportEnabled: false },
    };
    const watchers = h.platform.app.get(DepositWatchers);
    // Besides the watcher's own timer, polls back to back: one may read the head between the node moving it
    // and storing the block's logs. In the second half of the rounds, empty blocks keep coming too.
    let racing = true;
    let mining = false;
    const race = async (step: () => Promise<unknown>) => {
      while (racing) await step();
    };
    const racers = [
      race(() => watchers.pollOnce('sandbox')),
      race(() => (mining ? chain.mine(1) : new Promise((resolve) => setImmediate(resolve)))),
    ];
    const sent: { userId: string; walletId: string; amount: number; hash: string }[] = [];
    try {
      for (let round = 1; round <= ROUNDS; round++) {
        mining = round > ROUNDS / 2;
        const user = await h.http
          .post('/v1/users')
          .set({ ...sandbox, ...json })
          .send(newUserBody());
        await h.platform.app.get(UsersService).changeStatus(caller, user.body.id, 'active');
        const listed = await h.http.get('/v1/wallets').query({ userId: user.body.id }).set(sandbox);
        expect(listed.body.items).toHaveLength(1);
        const wallet = listed.body.items[0];
        const transfer = await chain.transfer(wallet.depositAddress, BigInt(round) * USDC);
        sent.push({ userId: user.body.id, walletId: wallet.id, amount: round, hash: transfer.hash });
      }
    } finally {
      racing = false;
      await Promise.all(racers);
    }

    for (const { walletId, amount } of sent) {
      await waitFor(
        async () => (await h.http.get(`/v1/wallets/${walletId}`).set(sandbox)).body.balance === amount,
        { what: `the ${amount} USDC transfer to wallet ${walletId} to be credited`, timeoutMs: 30_000 },
      );
    }
    // Polls go on: a credit given twice would show in the balances and the Events.
    await watchers.pollOnce('sandbox');
    for (const { userId, walletId, amount, hash } of sent) {
      expect((await h.http.get(`/v1/wallets/${walletId}`).set(sandbox)).body.balance).toBe(amount);
      const confirmed = await h.http
        .get('/v1/events')
        .query({ userId, eventName: 'blockchainTransaction.confirmed' })
        .set(sandbox);
      expect(
        confirmed.body.items.map((e: { data: { transactionHash: string } }) => e.data.transactionHash),
      ).toEqual([hash]);
    }
  }, 120_000);
});
