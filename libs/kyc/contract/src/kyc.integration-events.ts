import { IntegrationEvent, integrationEvent } from '@cip/shared/contracts';

/** Stream category of KYCs (`kyc-<id>`): the topic their events are published on. */
export const KYC_TOPIC = 'kyc';

export type KycVerifiedEvent = IntegrationEvent<
  'KycVerified',
  { kycId: string; userActivated: boolean; userNotActivatedReason: string | null; at: string }
>;
export type KycDeclinedEvent = IntegrationEvent<
  'KycDeclined',
  { kycId: string; declinedCode: string | null; at: string }
>;
export type KycExpiredEvent = IntegrationEvent<'KycExpired', { kycId: string; at: string }>;

export const kycVerified = integrationEvent<KycVerifiedEvent>(KYC_TOPIC, 'KycVerified');
export const kycDeclined = integrationEvent<KycDeclinedEvent>(KYC_TOPIC, 'KycDeclined');
export const kycExpired = integrationEvent<KycExpiredEvent>(KYC_TOPIC, 'KycExpired');
