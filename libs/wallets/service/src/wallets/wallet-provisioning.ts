import { Environment, notFound } from '@cip/shared/contracts';
import type { WalletView } from '@cip/wallets/read-models';
import { walletIdOf, WalletStreams } from './wallet-streams';

/** Provisioning: one wallet and one deposit address per activated user, and the operators' retry. */
export class WalletProvisioning {
  constructor(private readonly streams: WalletStreams) {}

  /**
   * Gives an activated user its wallet: allocates an address index, derives the deposit address and
   * creates the wallet. Safe to run again and concurrently (redelivered events, operator retries): the
   * wallet id is the user's, and creating an existing wallet changes nothing. A failure is recorded on the
   * wallet (`create_wallet_error`) instead of being thrown, unless even the recording fails.
   */
  async provisionWallet(
    environment: Environment,
    owner: { userId: string; distributorId: string; causationId?: string },
  ): Promise<WalletView> {
    const walletId = walletIdOf(owner.userId);
    const store = this.streams.ports.eventStore(environment);
    const context = this.streams.commandContext({
      environment,
      distributorId: owner.distributorId,
      causationId: owner.causationId,
    });
    const current = await this.streams.view(store, walletId);
    if (current?.status === 'active') return current;
    try {
      const chain = this.streams.ports.chain(environment);
      const addressIndex = await this.streams.allocator(environment).allocate(walletId, context);
      const depositAddress = chain.deriver.addressAt(addressIndex);
      await this.streams.command(store, walletId, context, () => ({
        type: 'CreateWallet',
        data: {
          ...owner,
          walletId,
          depositAddress,
          addressIndex,
          chain: chain.deriver.chain,
          now: context.occurredAt,
        },
      }));
    } catch (error) {
      const reason = error instanceof Error ? error.message : String(error);
      await this.streams.command(store, walletId, context, () => ({
        type: 'RecordProvisioningFailure',
        data: {
          walletId,
          userId: owner.userId,
          distributorId: owner.distributorId,
          reason,
          now: context.occurredAt,
        },
      }));
    }
    return (await this.streams.view(store, walletId)) as WalletView;
  }

  /** Operators: provisions again the wallet of a user whose provisioning failed. */
  async retryProvisioning(environment: Environment, userId: string): Promise<WalletView> {
    const view = await this.streams.view(this.streams.ports.eventStore(environment), walletIdOf(userId));
    if (!view) throw notFound('Wallet of user', userId);
    return this.provisionWallet(environment, {
      userId,
      distributorId: view.distributorId,
      causationId: 'operator',
    });
  }
}
