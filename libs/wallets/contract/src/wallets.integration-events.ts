import { IntegrationEvent, integrationEvent } from '@cip/shared/contracts';

/** Stream category of wallets (`wlt-<uuid>`): the topic their events are published on. */
export const WALLETS_TOPIC = 'wlt';

export type WithdrawalRequestedEvent = IntegrationEvent<
  'WithdrawalRequested',
  { walletId: string; withdrawalId: string; amount: number; toAddress: string; at: string }
>;

/** A withdrawal was accepted and its amount held: the payout runner pays it. */
export const withdrawalRequested = integrationEvent<WithdrawalRequestedEvent>(
  WALLETS_TOPIC,
  'WithdrawalRequested',
);

export type WalletHoldPlacedEvent = IntegrationEvent<
  'WalletHoldPlaced',
  {
    walletId: string;
    holdId: string;
    amount: number;
    kind: 'authorization';
    /** The authorization the hold was placed for (the hold id of a payment is its authorization's id). */
    reference: string | null;
    at: string;
  }
>;

/**
 * A card authorization's hold was placed (before its decision is recorded, for a payment the network asked
 * about): the authorizations context's unrecorded-hold sweep checks, after the network's timeout, that a
 * decision was recorded for it.
 */
export const walletHoldPlaced = integrationEvent<WalletHoldPlacedEvent>(WALLETS_TOPIC, 'WalletHoldPlaced');
