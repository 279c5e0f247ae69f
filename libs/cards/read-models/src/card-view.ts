import type { CardSpendingControls, CardView } from '@cip/cards/contract';
import { maskPan, spendingControlsOf, type CardRecord, type SpendingControls } from '@cip/cards/domain';
import { fromMinorUnits, toMinorUnits } from '@cip/wallets/contract';

export type { CardView };
export { renderCard } from '@cip/cards/contract';

/** The card as the API shows it: the vault reference stays in the card's events, never in a view. */
export function toCardView(card: CardRecord): CardView {
  return {
    id: card.cardId,
    distributorId: card.distributorId,
    userId: card.userId,
    walletId: card.walletId,
    type: card.type,
    status: card.status,
    bin: card.bin,
    last4: card.last4,
    maskedPan: maskPan(card.bin, card.last4),
    expMonth: card.expMonth,
    expYear: card.expYear,
    spendingControls: renderSpendingControls(spendingControlsOf(card)),
    tier: card.tier,
    deliveryType: card.deliveryType,
    shippingAddress: card.shippingAddress,
    shipment: card.shipment,
    replacesCardId: card.replacesCardId,
    blocks: [...card.blocks],
    createdAt: card.createdAt,
    updatedAt: card.updatedAt,
  };
}

/** Limit amounts in USD, as the API speaks them (exact: every limit has at most 2 decimals of USD). */
function renderSpendingControls(controls: SpendingControls): CardSpendingControls {
  return {
    ...controls,
    limits: controls.limits.map((limit) => ({ ...limit, amount: fromMinorUnits(limit.amount) })),
  };
}

/** Back to minor units, for the projection that folds views with the decider's evolve. */
export function spendingControlsOfView(view: CardView): SpendingControls {
  const controls = view.spendingControls;
  return {
    ...controls,
    limits: controls.limits.map((limit) => ({ ...limit, amount: toMinorUnits(limit.amount) })),
  } as SpendingControls;
}
