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
