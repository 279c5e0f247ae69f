import { cardDecider } from '@cip/cards/domain';
import { type EventStore, handleCommand } from '@cip/shared/eventing';
import { newId } from '@cip/shared/runtime';

// Test-only (not exported from the lib): what the service specs share.

/**
 * Records an active virtual card on the event store through the card decider, as the platform would,
 * without the vault: these specs never need its secrets.
 */
export async function recordVirtualCard(
  eventStore: EventStore,
  card: { distributorId: string; userId: string; now: string },
): Promise<string> {
  const cardId = newId('crd');
  await handleCommand(
    eventStore,
    cardDecider,
    cardId,
    {
      type: 'CreateCard',
      data: {
        cardId,
        distributorId: card.distributorId,
        userId: card.userId,
        walletId: 'wlt-1',
        type: 'virtual',
        issued: { vaultRef: 'vlt-1', bin: '40000099', last4: '4242', expMonth: 11, expYear: 2029 },
        now: card.now,
      },
    },
    { occurredAt: card.now, distributorId: card.distributorId, environment: 'sandbox' },
  );
  return cardId;
}
