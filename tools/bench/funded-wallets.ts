import type { LedgerContext } from '@cip/wallets/contract';
import type { WalletsService } from '@cip/wallets/service';

/**
 * Provisions `count` sandbox wallets and credits each with `amount` minor units through a simulated deposit
 * (the ledger benches' starting point); their ids, in order.
 */
export async function fundedWallets(
  wallets: WalletsService,
  context: LedgerContext,
  { count, amount, prefix }: { count: number; amount: number; prefix: string },
): Promise<string[]> {
  const ids: string[] = [];
  for (let i = 0; i < count; i++) {
    const wallet = await wallets.provisionWallet('sandbox', {
      userId: `usr-${prefix}-${i}`,
      distributorId: context.distributorId,
    });
    await wallets.creditDeposit(context, wallet.id, {
      depositId: `0x${prefix}${i}:0`,
      amount,
      transactionHash: `0x${prefix}${i}`,
      logIndex: 0,
      blockNumber: 1,
      fromAddress: null,
      source: 'simulation',
    });
    ids.push(wallet.id);
  }
  return ids;
}
