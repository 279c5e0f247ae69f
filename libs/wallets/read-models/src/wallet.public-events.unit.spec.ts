import type { ProjectedEvent } from '@cip/shared/read-store';
import type { WalletEvent } from '@cip/wallets/domain';
import { walletPublicEvents } from './wallet.public-events';
import type { WalletView } from './wallet-view';
import { walletsProjection } from './wallets.projection';

const WALLET = 'wlt-00000000-0000-5000-8000-000000000003';
const AT = '2026-01-01T00:00:00.000Z';
const owner = { walletId: WALLET, userId: 'usr-1', at: AT };

let position = 0;
const recorded = (event: WalletEvent): ProjectedEvent => ({
  streamId: WALLET,
  revision: position,
  position: ++position,
  type: event.type,
  data: event.data as Record<string, unknown>,
  metadata: { eventId: `evt-${position}`, occurredAt: AT, distributorId: 'dst-1' },
});

const snapshot = walletsProjection.evolve(
  null,
  recorded({
    type: 'WalletCreated',
    data: {
      walletId: WALLET,
      userId: 'usr-1',
      distributorId: 'dst-1',
      depositAddress: '0x0000000000000000000000000000000000000003',
      addressIndex: 0,
      chain: 'simulated',
      currency: 'USDC',
      createdAt: AT,
    },
  }),
) as WalletView;

// Every movement of the card money path, as the ledger records it, and the wallet document it leaves.
const movements: [string, WalletEvent, Partial<WalletView>][] = [
  [
    'a partial clearing',
    {
      type: 'WalletHoldSettled',
      data: {
        ...owner,
        holdId: 'aut-1',
        clearingId: 'clr-1',
        amount: 15_000_000,
        heldAmount: 15_000_000,
        final: false,
        cleared: 15_000_000,
        remaining: 25_000_000,
        balance: 85_000_000,
        held: 25_000_000,
      },
    },
    { balance: 85, pendingHolds: 25, availableBalance: 60 },
  ],
  [
    'a partial reversal',
    {
      type: 'WalletHoldReleased',
      data: {
        ...owner,
        holdId: 'aut-1',
        reversalId: 'rev-1',
        reason: 'reversal',
        amount: 5_000_000,
        remaining: 20_000_000,
        cleared: 15_000_000,
        balance: 85_000_000,
        held: 20_000_000,
      },
    },
    { balance: 85, pendingHolds: 20, availableBalance: 65 },
  ],
  [
    'an expiry',
    {
      type: 'WalletHoldReleased',
      data: {
        ...owner,
        holdId: 'aut-1',
        reason: 'expiry',
        amount: 20_000_000,
        remaining: 0,
        cleared: 15_000_000,
        balance: 85_000_000,
        held: 0,
      },
    },
    { balance: 85, pendingHolds: 0, availableBalance: 85 },
  ],
  [
    'a force post',
    {
      type: 'WalletForcePosted',
      data: {
        ...owner,
        postingId: 'fp-1',
        amount: 90_000_000,
        reference: null,
        balance: -5_000_000,
        held: 0,
      },
    },
    { balance: -5, pendingHolds: 0, availableBalance: -5 },
  ],
];

describe('wallet public events: the card money path', () => {
  it.each(movements)(
    'sends balance.updated after %s, and the wallet shows the figures it carries',
    (_, event, figures) => {
      const projected = recorded(event);
      expect(walletPublicEvents.toPublicEvents(projected, snapshot)).toEqual([
        { eventName: 'balance.updated', eventTargetId: WALLET, userId: 'usr-1' },
      ]);
      expect(walletsProjection.evolve(snapshot, projected)).toMatchObject(figures);
    },
  );
});
