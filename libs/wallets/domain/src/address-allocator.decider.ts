import { domainEventReader, type Decider, type DomainEvent } from '@cip/shared/contracts';

// ---------------------------------------------------------------------------------------------------
// Allocation of HD derivation indexes to wallets, one allocator stream per environment. Every index is
// handed out by an append at an expected revision, so two wallets provisioned at the same moment can
// never get the same index (and so the same deposit address). An index whose wallet creation then lost a
// race or crashed is simply never used: gaps are harmless, duplicates are not.
// ---------------------------------------------------------------------------------------------------

export const ADDRESS_ALLOCATOR_STREAM = 'wltaddr-allocator';

export type DepositAddressIndexAllocated = DomainEvent<
  'DepositAddressIndexAllocated',
  { index: number; walletId: string; at: string }
>;

export interface AllocateAddressIndex {
  type: 'AllocateAddressIndex';
  data: { walletId: string; now: string };
}

export interface AddressAllocatorState {
  /** The next index to hand out (indexes start at 0). */
  next: number;
}

export const addressAllocatorDecider: Decider<
  AllocateAddressIndex,
  DepositAddressIndexAllocated,
  AddressAllocatorState
> = {
  decide: ({ data }, state) => [
    {
      type: 'DepositAddressIndexAllocated',
      data: { index: state.next, walletId: data.walletId, at: data.now },
    },
  ],
  evolve: (_state, event) => ({ next: event.data.index + 1 }),
  initialState: () => ({ next: 0 }),
  events: domainEventReader<DepositAddressIndexAllocated>(),
};
