import type { PublicEventName } from '@cip/shared/contracts';

export { DELIVERY_STATUSES, renderDelivery } from '@cip/webhooks/contract';
export type { DeliveryAttempt, DeliveryStatus, WebhookDelivery } from '@cip/webhooks/contract';

export const WEBHOOK_DELIVERIES = 'webhook_deliveries';

/** Deliveries that cannot wait: 3-D Secure challenges time out within minutes. */
export const EXPRESS_EVENT_NAMES: readonly PublicEventName[] = ['cardAuthentication.created'];
