import { createLogger } from '@cip/shared/runtime';
import { waitFor } from '@cip/shared/testing';
import { generatePrivateKey, privateKeyToAddress } from 'viem/accounts';
import {
  InMemoryPayoutJournal,
  localChainKey,
  startLocalChain,
  startRpcProxy,
  type LocalChain,
} from '../testing';
import { EvmPayout, type EvmPayoutConfig } from './evm-payout';

const logger = createLogger('silent');
let chain: LocalChain;
let hotWalletKey: string;

beforeAll(async () => {
  chain = await startLocalChain({ accounts: 1 });
  hotWalletKey = localChainKey('account-0');
  await chain.transfer(chain.accounts[0].address, 1_000_000_000n);
});
afterAll(() => chain.stop());

function newAddress(): string {
  return privateKeyToAddress(generatePrivateKey());
}

function payoutFixture(overrides: Partial<EvmPayoutConfig> = {}) {
  const journal = new InMemoryPayoutJournal();
  const payout = new EvmPayout(
    {
      rpcUrl: chain.rpcUrl,
      chainId: chain.chainId,
      tokenAddress: chain.tokenAddress,
      hotWalletPrivateKey: hotWalletKey,
      receiptPollIntervalMs: 10,
      ...overrides,
    },
    journal,
    logger,
  );
  return { journal, payout };
}

describe('EvmPayout on a local chain', () => {
  it('pays the destination and reports the hash, block height and receipt', async () => {
    const { payout } = payoutFixture();
    const to = newAddress();
    const result = await payout.send({ withdrawalId: 'wdr-1', toAddress: to, amountMinor: 2_500_000n });

    expect(result).toMatchObject({ status: 'confirmed', hash: expect.stringMatching(/^0x[0-9a-f]{64}$/) });
    if (result.status !== 'confirmed') throw new Error('not confirmed');
    expect(await chain.tokenBalance(to)).toBe(2_500_000n);
    const receipt = await chain.client.getTransactionReceipt({ hash: result.hash as `0x${string}` });
    expect(result.blockHeight).toBe(Number(receipt.blockNumber));
    expect(JSON.parse(result.rawTxReceipt)).toMatchObject({
      transactionHash: result.hash,
      blockNumber: String(receipt.blockNumber),
      status: 'success',
      from: chain.accounts[0].address.toLowerCase(),
      to: chain.tokenAddress.toLowerCase(),
    });
  });

  it('pays once when the same withdrawal is sent twice, in a row or at once', async () => {
    const { payout } = payoutFixture();
    const to = newAddress();
    const request = { withdrawalId: 'wdr-twice', toAddress: to, amountMinor: 1_000n };
    const first = await payout.send(request);
    const again = await payout.send(request);
    const concurrent = await Promise.all([
      payout.send({ ...request, withdrawalId: 'wdr-concurrent' }),
      payout.send({ ...request, withdrawalId: 'wdr-concurrent' }),
    ]);

    expect(again).toEqual(first);
    expect(concurrent[1]).toEqual(concurrent[0]);
    expect(await chain.tokenBalance(to)).toBe(2_000n);
  });

  it('after a crash between journaling and broadcasting, a retry sends the journaled transaction', async () => {
    const { journal, payout } = payoutFixture();
    const to = newAddress();
    const request = { withdrawalId: 'wdr-crash', toAddress: to, amountMinor: 7n };
    // Record the signed transaction but lose the broadcast, as a process killed right after the journal write.
    const save = journal.save.bind(journal);
    jest.spyOn(journal, 'save').mockImplementationOnce(async (entry) => {
      await save(entry);
      throw new Error('crashed before broadcast');
    });
    await expect(payout.send(request)).rejects.toThrow('crashed before broadcast');
    expect(await chain.tokenBalance(to)).toBe(0n);

    const retried = await payout.send(request);
    expect(retried).toMatchObject({ status: 'confirmed', hash: journal.entries.get('wdr-crash')!.hash });
    expect(await chain.tokenBalance(to)).toBe(7n);
  });

  it('signs again when the journaled transaction lost its nonce to another payout, and still pays once', async () => {
    const { journal, payout } = payoutFixture();
    const to = newAddress();
    const save = journal.save.bind(journal);
    jest.spyOn(journal, 'save').mockImplementationOnce(async (entry) => {
      await save(entry);
      throw new Error('crashed before broadcast');
    });
    await expect(
      payout.send({ withdrawalId: 'wdr-stale', toAddress: to, amountMinor: 5n }),
    ).rejects.toThrow();
    const stale = journal.entries.get('wdr-stale')!;
    // Another payout takes the nonce the journaled one was signed with.
    await payout.send({ withdrawalId: 'wdr-other', toAddress: newAddress(), amountMinor: 1n });

    const result = await payout.send({ withdrawalId: 'wdr-stale', toAddress: to, amountMinor: 5n });
    expect(result).toMatchObject({ status: 'confirmed' });
    expect((result as { hash: string }).hash).not.toBe(stale.hash);
    expect(await chain.tokenBalance(to)).toBe(5n);
  });

  it('rejects a payout larger than the hot wallet holds, without sending anything', async () => {
    const { journal, payout } = payoutFixture();
    const to = newAddress();
    const result = await payout.send({ withdrawalId: 'wdr-big', toAddress: to, amountMinor: 10n ** 18n });
    expect(result).toEqual({
      status: 'rejected',
      reason: expect.stringContaining('insufficient hot-wallet token balance'),
      hash: null,
    });
    expect(journal.entries.size).toBe(0);
    expect(await chain.tokenBalance(to)).toBe(0n);
  });

  it('rejects a payout the hot wallet cannot pay gas for', async () => {
    const broke = generatePrivateKey();
    await chain.transfer(privateKeyToAddress(broke), 1_000n);
    const { payout } = payoutFixture({ hotWalletPrivateKey: broke });
    const result = await payout.send({ withdrawalId: 'wdr-gas', toAddress: newAddress(), amountMinor: 1n });
    expect(result).toEqual({
      status: 'rejected',
      reason: expect.stringContaining('insufficient hot-wallet gas funds'),
      hash: null,
    });
  });

  it('rejects a transfer the token refuses, with its revert reason', async () => {
    const { payout } = payoutFixture();
    const result = await payout.send({
      withdrawalId: 'wdr-zero',
      toAddress: '0x0000000000000000000000000000000000000000',
      amountMinor: 1n,
    });
    expect(result).toEqual({
      status: 'rejected',
      reason: 'the token transfer would revert: ERC20: transfer to the zero address',
      hash: null,
    });
  });

  it('rejects an invalid destination address and a non-positive amount', async () => {
    const { payout } = payoutFixture();
    expect(await payout.send({ withdrawalId: 'wdr-bad', toAddress: '0x1234', amountMinor: 1n })).toEqual({
      status: 'rejected',
      reason: 'invalid destination address: 0x1234',
      hash: null,
    });
    expect(await payout.send({ withdrawalId: 'wdr-bad', toAddress: newAddress(), amountMinor: 0n })).toEqual({
      status: 'rejected',
      reason: 'the amount must be positive',
      hash: null,
    });
  });

  it('reports confirmed only once the block has the configured confirmations', async () => {
    const proxy = await startRpcProxy(chain.rpcUrl);
    const { payout } = payoutFixture({ confirmations: 2, rpcUrl: proxy.url });
    let settled = false;
    try {
      const sending = payout
        .send({ withdrawalId: 'wdr-deep', toAddress: newAddress(), amountMinor: 3n })
        .finally(() => (settled = true));
      // Once the payout has read the receipt and polled the head twice more, it has had every chance to answer.
      await waitFor(
        () => settled || proxy.methods.slice(proxy.methods.indexOf('eth_getTransactionReceipt')).length > 2,
        { what: 'the payout to read its receipt and poll the head twice more' },
      );
      expect(settled).toBe(false);

      await chain.mine(1);
      const result = await sending;
      expect(result).toMatchObject({ status: 'confirmed' });
      const receipt = await chain.client.getTransactionReceipt({
        hash: (result as { hash: `0x${string}` }).hash,
      });
      expect(result).toMatchObject({ blockHeight: Number(receipt.blockNumber) });
    } finally {
      await proxy.close();
    }
  });
});
