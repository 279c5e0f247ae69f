import { waitFor } from '@cip/shared/testing';
import { LocalChain, localChainKey, startLocalChain } from '@cip/wallets/chain/testing';
import { DepositWatchers } from '@cip/wallets/service';
import { changeUserStatusAsOperator } from './testing/cardholders';
import { Harness, newUserBody, SANDBOX_KEY, startHarness } from './testing/platform-harness';
import { e2eTopology } from './testing/topology';

const json = { 'content-type': 'application/json' };
const sandbox = { 'x-api-key': SANDBOX_KEY };
const CONFIRMATIONS = 3;
const USDC = 1_000_000n;

/** A hook's or test's budget: `ms` on the one-process platform, the e2e-split project's on the split topology. */
const budget = (ms: number) => (e2eTopology() === 'split' ? undefined : ms);

/**
 * Integration order steps 2-4 against a real EVM chain (ganache, in the test process, offline; its URL given to
 * the platform, the wallets service when split): a verified user's wallet gets a deposit address on that
 * chain, a USDC transfer to it is credited once it has the confirmations, exactly once, and a withdrawal is
 * paid on chain by the hot wallet. The platform's watcher scans the chain on its own timer; what it has
 * scanned shows the way a user sees it: a transfer to a sentinel wallet credited (see `watcherCaughtUp`).
 */
describe('USDC funding on a local EVM chain', () => {
  let chain: LocalChain;
  let h: Harness;
  const hotWalletKey = localChainKey('account-0');
  /** A wallet of its own whose credits tell how far the watcher has scanned, and what it holds by now. */
  let sentinel: { id: string; depositAddress: string };
  let sentinelBalance = 0;

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
          pollIntervalMs: 50,
          maxBlockRange: 1_000,
          hotWalletPrivateKey: hotWalletKey,
        },
      },
    });
    sentinel = (await verifiedUserWallet()).wallet;
  }, budget(30_000));
  afterAll(async () => {
    await h?.close();
    await chain?.stop();
  });

  const getWallet = async (walletId: string) =>
    (await h.http.get(`/v1/wallets/${walletId}`).set(sandbox)).body;
  const eventsOf = async (userId: string, eventName: string) =>
    (await h.http.get('/v1/events').query({ userId, eventName, limit: 100 }).set(sandbox)).body.items;

  /** Sends 1 USDC to the sentinel wallet (in a block of its own: the local chain mines one per transaction). */
  const toSentinel = async () => {
    await chain.transfer(sentinel.depositAddress, USDC);
    sentinelBalance += 1;
  };
  /**
   * Resolves once the sentinel's transfers are credited: the watcher credits the blocks in order, so it has
   * then scanned every block up to the last one sent to the sentinel (with the head it needed to confirm it).
   */
  const sentinelCredited = () =>
    waitFor(async () => (await getWallet(sentinel.id)).balance === sentinelBalance, {
      what: `the watcher to credit the sentinel wallet up to ${sentinelBalance} USDC`,
      timeoutMs: 30_000,
    });
  /** Resolves once the watcher has scanned every block mined so far (a later sentinel transfer credited). */
  const watcherCaughtUp = async () => {
    await toSentinel();
    await chain.mine(CONFIRMATIONS - 1);
    await sentinelCredited();
  };
  /** Resolves with the wallet once a deposit is credited on it. */
  const credited = async (walletId: string) => {
    await waitFor(async () => (await getWallet(walletId)).balance !== 0, {
      what: `a deposit credited on wallet ${walletId}`,
      timeoutMs: 30_000,
    });
    return getWallet(walletId);
  };
  /** The saga hands a withdrawal to the payout runner: resolves once the user's Events tell its outcome. */
  const paidOut = (userId: string) =>
    waitFor(
      async () =>
        (await eventsOf(userId, 'withdrawal.confirmed')).length +
          (await eventsOf(userId, 'withdrawal.rejected')).length >
        0,
      { what: `the withdrawal of user ${userId} to be confirmed or rejected`, timeoutMs: 30_000 },
    );

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

    // The sentinel's transfer goes in the block before: credited, it had the confirmations the user's lacks
    // by one, so the watcher has seen the head this transfer is one confirmation short at.
    await toSentinel();
    const transfer = await chain.transfer(wallet.depositAddress, 25_500_000n);
    await chain.mine(CONFIRMATIONS - 2);
    await sentinelCredited();
    expect((await getWallet(wallet.id)).balance).toBe(0); // one confirmation short

    await chain.mine(1);
    expect(await credited(wallet.id)).toMatchObject({ balance: 25.5, availableBalance: 25.5 });

    await chain.mine(5);
    await watcherCaughtUp();
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
    await watcherCaughtUp();
    expect((await getWallet(wallet.id)).balance).toBe(0);
  });

  it(
    'pays a withdrawal on chain from the hot wallet and debits the wallet',
    async () => {
      const { userId, wallet } = await verifiedUserWallet();
      await chain.transfer(wallet.depositAddress, 40n * USDC);
      await chain.mine(CONFIRMATIONS);
      expect((await credited(wallet.id)).balance).toBe(40);

      const recipient = chain.accounts[1].address;
      const before = await chain.tokenBalance(recipient);
      const withdrawal = await h.http
        .post(`/v1/wallets/${wallet.id}/withdrawals`)
        .set({ ...sandbox, ...json })
        .send({ amount: 12.25, toAddress: recipient });
      expect(withdrawal.status).toBe(201);
      await paidOut(userId);

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
    },
    budget(30_000),
  );

  it(
    'rejects a withdrawal the hot wallet cannot pay, and gives the money back',
    async () => {
      const { userId, wallet } = await verifiedUserWallet();
      await chain.transfer(wallet.depositAddress, 5_000n * USDC);
      await chain.mine(CONFIRMATIONS);
      const balance = (await credited(wallet.id)).balance;
      expect(balance).toBe(5_000);

      // More than the hot wallet holds (it was funded with 1,000 USDC).
      const withdrawal = await h.http
        .post(`/v1/wallets/${wallet.id}/withdrawals`)
        .set({ ...sandbox, ...json })
        .send({ amount: 2_000, toAddress: chain.accounts[1].address });
      expect(withdrawal.status).toBe(201);
      await paidOut(userId);

      const [rejected] = await eventsOf(userId, 'withdrawal.rejected');
      expect(rejected.data).toMatchObject({ hash: null });
      expect(rejected.data.reason).toMatch(/balance|insufficient/i);
      expect(await getWallet(wallet.id)).toMatchObject({
        balance: 5_000,
        availableBalance: 5_000,
        pendingHolds: 0,
      });
    },
    budget(30_000),
  );
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
  }, budget(30_000));
  afterAll(async () => {
    await h?.close();
    await chain?.stop();
  });

  /** A new user, activated by staff (no KYC: the wallet is provisioned at once), and its wallet. */
  async function activatedUserWallet() {
    const user = await h.http
      .post('/v1/users')
      .set({ ...sandbox, ...json })
      .send(newUserBody());
    expect((await changeUserStatusAsOperator(h, user.body.id, 'active')).status).toBe(200);
    const listed = await h.http.get('/v1/wallets').query({ userId: user.body.id }).set(sandbox);
    expect(listed.body.items).toHaveLength(1);
    return { userId: user.body.id as string, wallet: listed.body.items[0] };
  }
  const balanceOf = async (walletId: string) =>
    (await h.http.get(`/v1/wallets/${walletId}`).set(sandbox)).body.balance;

  it(
    'credits every transfer sent as soon as the wallet exists exactly once, while blocks keep coming',
    async () => {
      // On the one-process platform, besides the watcher's own timer, the test polls back to back (in process):
      // one may read the head between the node moving it and storing the block's logs. When split, the
      // watcher's 10 ms timer is the only poller. In the second half of the rounds, empty blocks keep coming too.
      const watchers = h.topology === 'one-process' ? h.platform.app.get(DepositWatchers) : null;
      let racing = true;
      let mining = false;
      const race = async (step: () => Promise<unknown>) => {
        while (racing) await step();
      };
      const racers = [
        race(() => (mining ? chain.mine(1) : new Promise((resolve) => setImmediate(resolve)))),
        ...(watchers ? [race(() => watchers.pollOnce('sandbox'))] : []),
      ];
      const sent: { userId: string; walletId: string; amount: number; hash: string }[] = [];
      try {
        for (let round = 1; round <= ROUNDS; round++) {
          mining = round > ROUNDS / 2;
          const { userId, wallet } = await activatedUserWallet();
          const transfer = await chain.transfer(wallet.depositAddress, BigInt(round) * USDC);
          sent.push({ userId, walletId: wallet.id, amount: round, hash: transfer.hash });
        }
      } finally {
        racing = false;
        await Promise.all(racers);
      }

      for (const { walletId, amount } of sent) {
        await waitFor(async () => (await balanceOf(walletId)) === amount, {
          what: `the ${amount} USDC transfer to wallet ${walletId} to be credited`,
          timeoutMs: 30_000,
        });
      }
      // Polls go on: a credit given twice would show in the balances and the Events. A transfer sent after every
      // other, credited, says the watcher has scanned past them all (it credits the blocks in order).
      const last = await activatedUserWallet();
      await chain.transfer(last.wallet.depositAddress, USDC);
      await waitFor(async () => (await balanceOf(last.wallet.id)) === 1, {
        what: 'a transfer sent after the others to be credited',
        timeoutMs: 30_000,
      });
      for (const { userId, walletId, amount, hash } of sent) {
        expect(await balanceOf(walletId)).toBe(amount);
        const confirmed = await h.http
          .get('/v1/events')
          .query({ userId, eventName: 'blockchainTransaction.confirmed' })
          .set(sandbox);
        expect(
          confirmed.body.items.map((e: { data: { transactionHash: string } }) => e.data.transactionHash),
        ).toEqual([hash]);
      }
    },
    budget(120_000),
  );
});
