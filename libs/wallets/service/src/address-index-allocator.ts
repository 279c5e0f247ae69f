import { CommandContext, envelope, EventStore, WrongExpectedRevisionError } from '@cip/shared/eventing';
import {
  ADDRESS_ALLOCATOR_STREAM,
  addressAllocatorDecider,
  AddressAllocatorState,
  DepositAddressIndexAllocated,
} from '@cip/wallets/domain';

/**
 * Hands out deposit-address indexes from the allocator stream of one environment. The stream holds one
 * event per wallet ever provisioned, so instead of folding it whole on every allocation (what
 * `handleCommand` does) this keeps the folded state and its revision and only reads what was appended
 * since; the append still carries the expected revision, so another process allocating at the same time
 * makes it read again rather than reuse an index. Allocations of one process are queued one after the
 * other, as they would only conflict with each other.
 */
export class AddressIndexAllocator {
  private state: AddressAllocatorState = addressAllocatorDecider.initialState();
  private revision = -1;
  private queue: Promise<unknown> = Promise.resolve();

  constructor(private readonly store: EventStore) {}

  allocate(walletId: string, context: CommandContext): Promise<number> {
    const next = this.queue.then(() => this.allocateNow(walletId, context));
    this.queue = next.catch(() => undefined);
    return next;
  }

  private async allocateNow(walletId: string, context: CommandContext): Promise<number> {
    for (let attempt = 1; ; attempt++) {
      await this.catchUp();
      const [event] = addressAllocatorDecider.decide(
        { type: 'AllocateAddressIndex', data: { walletId, now: context.occurredAt } },
        this.state,
      );
      try {
        await this.store.append(ADDRESS_ALLOCATOR_STREAM, [envelope(event, context)], {
          expectedRevision: this.revision < 0 ? 'no_stream' : this.revision,
        });
        this.apply(event, this.revision + 1);
        return event.data.index;
      } catch (error) {
        if (!(error instanceof WrongExpectedRevisionError) || attempt >= 20) throw error;
      }
    }
  }

  private async catchUp(): Promise<void> {
    const fresh = await this.store.readStream(ADDRESS_ALLOCATOR_STREAM, { fromRevision: this.revision + 1 });
    for (const event of fresh) this.apply(addressAllocatorDecider.events.read(event), event.revision);
  }

  private apply(event: DepositAddressIndexAllocated, revision: number): void {
    this.state = addressAllocatorDecider.evolve(this.state, event);
    this.revision = revision;
  }
}
