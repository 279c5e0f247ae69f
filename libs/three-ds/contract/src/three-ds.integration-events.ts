import { IntegrationEvent, integrationEvent } from '@cip/shared/contracts';
import type { CardAuthenticationResult } from './card-authentication-view';

/** Stream category of card authentications (`tds-<uuid>`): the topic their events are published on. */
export const THREE_DS_TOPIC = 'tds';

/**
 * A challenge was decided (accepted, rejected or expired). The context's own results saga reacts to it by
 * sending the RReq to the directory server until it is acknowledged: the outcome is never lost, even when
 * the platform stops between the decision and the message.
 */
export type CardAuthenticationDecidedEvent = IntegrationEvent<
  'CardAuthenticationDecided',
  { cardAuthenticationId: string; transStatus: CardAuthenticationResult['transStatus'] }
>;

export const cardAuthenticationDecided = integrationEvent<CardAuthenticationDecidedEvent>(
  THREE_DS_TOPIC,
  'CardAuthenticationDecided',
);
