import { openEmbeddedInfrastructure } from '@cip/shared/infrastructure';
import { waitFor } from '@cip/shared/testing';
import {
  LocalChain,
  localChainKey,
  RpcProxy,
  startLocalChain,
  startRpcProxy,
} from '@cip/wallets/chain/testing';
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { generatePrivateKey, privateKeyToAddress } from 'viem/accounts';
import { discardPlatform, fundedCardholder, jsonCaller, startDurablePlatform } from './testing/kill-nine';
import { exited, freePort } from '@cip/platform/topologies';

const KEY = 'sk_sandbox_settleCrashKeyFFFFFFFFFFFFFFFFFFFFFFFFF';
const CLI_MAIN = join(__dirname, '..', '..', '..', 'dist/apps/cli/src/main.js');
const USDC = 1_000_000n;

/** The built CLI as an operator runs it beside the platform; resolves with its exit code and output. */
function runCli(
  argv: string[],
  env: NodeJS.ProcessEnv,
): Promise<{ code: number | null; stdout: string; stderr: string }> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [CLI_MAIN, ...argv], {
      env: { ...process.env, ...env },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
    child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
    child.once('error', reject);
    child.once('exit', (code) => resolve({ code, stdout, stderr }));
  });
}

/**
 * Settlement on a real EVM chain (ganache) through the built platform, killed with SIGKILL right after the
 * batch's transfer was journaled (the node never got it), then right after the node mined it (the outcome
 * not recorded yet): after each restart the platform finishes the same transfer, so the settlement address
 * receives the batch's amount exactly once, and each wallet gets its blockchainTransaction.confirmed.
 */
describe('durability: kill -9 during a settlement transfer on a local EVM chain', () => {
  const dataDir = mkdtempSync(join(tmpdir(), 'cip-crash-settlement-'));
  const settlementAddress = privateKeyToAddress(generatePrivateKey());
  let chain: LocalChain;
  let proxy: RpcProxy;
  let child: ChildProcess | undefined;

  beforeAll(async () => {
    chain = await startLocalChain({ accounts: 1 });
    await chain.transfer(chain.accounts[0].address, 1_000n * USDC);
    proxy = await startRpcProxy(chain.rpcUrl);
  }, 120_000);
  afterAll(async () => {
    await discardPlatform(child, dataDir);
    await proxy?.close();
    await chain?.stop();
  });

  it('pays the batch once and confirms it after being killed before the broadcast and before the receipt', async () => {
    const env = {
      CHAIN_RPC_URL_SANDBOX: proxy.url,
      CHAIN_ID_SANDBOX: String(chain.chainId),
      USDC_CONTRACT_ADDRESS_SANDBOX: chain.tokenAddress,
      HOT_WALLET_PRIVATE_KEY_SANDBOX: localChainKey('account-0'),
      CHAIN_CONFIRMATIONS_SANDBOX: '1',
      CHAIN_POLL_INTERVAL_MS_SANDBOX: '3600000',
      SETTLEMENT_ADDRESS_SANDBOX: settlementAddress,
      SETTLEMENT_INTERVAL_MS: '0',
    };
    const port = await freePort();
    const call = jsonCaller(`http://127.0.0.1:${port}`, KEY);
    const start = async () => (child = await startDurablePlatform(dataDir, port, KEY, env));
    const kill = async () => {
      child?.kill('SIGKILL');
      await exited(child as ChildProcess);
    };
    await start();

    const merchant = { name: 'Crash Cafe', city: 'Lyon', country: 'FR', mcc: '5814' };
    const users: { userId: string; walletId: string }[] = [];
    for (const [index, amount] of [12.5, 7.25].entries()) {
      const { userId, walletId, card } = await fundedCardholder(
        call,
        `settle-crash-${index}@example.com`,
        100,
      );
      // The issuer links to the embedded card network just after the platform listens.
      let authorization: Record<string, unknown> = {};
      await waitFor(
        async () => {
          authorization = (
            await call('POST', '/v1/simulate/authorization', {
              cardId: card.id,
              amount,
              currency: 'USD',
              merchant,
            })
          ).body;
          return (authorization.network as { responseCode?: string } | undefined)?.responseCode === '00';
        },
        { what: 'an approved authorization', intervalMs: 100 },
      );
      const clearing = await call('POST', '/v1/simulate/authorization/clearing', {
        authorizationId: (authorization.authorization as { id: string }).id,
      });
      expect(clearing.body.delivered).toBe(true);
      users.push({ userId, walletId });
    }
    const net = 12_500_000n + 7_250_000n;
    const custodyBefore = await chain.tokenBalance(chain.accounts[0].address);

    // 1. The operator cuts the batch; the platform signs, journals, and is stopped dead at the broadcast.
    proxy.hold = (method) => method === 'eth_sendRawTransaction';
    const cut = await runCli(['settlement', 'run', '--env', 'sandbox', '--data-dir', dataDir, '--json'], env);
    expect(cut.code).toBe(0);
    const report = JSON.parse(cut.stdout) as { batches: { batchId: string; amount: number }[] };
    expect(report.batches).toEqual([expect.objectContaining({ amount: Number(net) })]);
    const [{ batchId }] = report.batches;
    await waitFor(() => proxy.held.includes('eth_sendRawTransaction'), { what: 'the transfer broadcast' });
    await kill();
    expect(await chain.tokenBalance(settlementAddress)).toBe(0n);
    const stored = openEmbeddedInfrastructure({ dataDir });
    const journaled = await stored.scope('sandbox').eventStore.readStream(batchId);
    await stored.close();
    expect(journaled.map((event) => event.type)).toEqual([
      'SettlementBatchOpened',
      'SettlementTransferSigned',
    ]);
    const journaledHash = (journaled[1].data as { hash: string }).hash;

    // 2. Restarted, it broadcasts the journaled transaction; the node mines it, and the platform is killed
    //    while it waits for the receipt.
    const mark = proxy.methods.length;
    proxy.hold = (method) =>
      method === 'eth_getTransactionReceipt' && proxy.methods.slice(mark).includes('eth_sendRawTransaction');
    await start();
    await waitFor(() => proxy.held.includes('eth_getTransactionReceipt'), { what: 'the receipt asked for' });
    await kill();
    expect(await chain.tokenBalance(settlementAddress)).toBe(net);

    // 3. Restarted once more, it finds the transfer mined and records the batch: paid once.
    proxy.hold = null;
    await start();
    for (const { userId, walletId } of users) {
      let events: { data: Record<string, unknown> }[] = [];
      await waitFor(
        async () => {
          const page = await call(
            'GET',
            `/v1/events?userId=${userId}&eventName=blockchainTransaction.confirmed`,
          );
          events = ((page.body.items ?? []) as { data: Record<string, unknown> }[]).filter(
            (event) => event.data.type === 'settlement',
          );
          return events.length > 0;
        },
        { what: `the settlement Event of ${userId}`, timeoutMs: 60_000, intervalMs: 100 },
      );
      expect(events).toHaveLength(1);
      // The very transaction journaled before the first kill: not a second one signed after it.
      expect(events[0].data).toMatchObject({
        userId,
        walletId,
        type: 'settlement',
        transactionHash: journaledHash,
      });
      const receipt = await chain.client.getTransactionReceipt({
        hash: events[0].data.transactionHash as `0x${string}`,
      });
      expect(receipt.status).toBe('success');
      expect(events[0].data.blockNumber).toBe(Number(receipt.blockNumber));
    }
    expect(await chain.tokenBalance(settlementAddress)).toBe(net);
    expect(await chain.tokenBalance(chain.accounts[0].address)).toBe(custodyBefore - net);
  }, 180_000);
});
