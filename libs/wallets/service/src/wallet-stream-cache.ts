import type { StreamStateCache } from '@cip/shared/eventing';
import type { WalletState } from '@cip/wallets/domain';

/**
 * The folded states of the most recently used wallets (least recently used dropped beyond `capacity`),
 * so a ledger command or a read by id reads only the wallet's newest events; a hot wallet with a long
 * history costs the same as a new one.
 */
export class WalletStateCache<State = WalletState> implements StreamStateCache<State> {
  private readonly entries = new Map<string, { state: State; revision: number }>();

  constructor(private readonly capacity = 50_000) {}

  get(streamId: string) {
    return this.entries.get(streamId);
  }

  set(streamId: string, state: State, revision: number): void {
    this.entries.delete(streamId);
    this.entries.set(streamId, { state, revision });
    if (this.entries.size > this.capacity) this.entries.delete(this.entries.keys().next().value as string);
  }
}
