import { Decider, DomainEvent, domainEventReader } from '@cip/shared/contracts';
import type { HostedKycType, RfiSubtype } from './kyc.types';

// ---------------------------------------------------------------------------------------------------
// The order of a user's starts of one kind of hosted KYC, across every replica of the KYC service. Each
// start claims its turn in one stream per user and kind, appended with the revision it read (two starts at
// once: one appends first, the other decides again on the fresh stream), so each start learns the one it
// supersedes, and a start that finds itself superseded once its KYC exists closes it. One pending link per
// user and kind, whichever replicas the starts reached.
// ---------------------------------------------------------------------------------------------------

export type KycStartClaimed = DomainEvent<'KycStartClaimed', { kycId: string; at: string }>;

export interface ClaimKycStart {
  type: 'ClaimKycStart';
  data: { kycId: string; now: string };
}

export interface KycStartClaims {
  /** The KYC of the latest start; null before any. */
  latest: string | null;
  /** The KYC of the start before it (the one the latest supersedes); null when there was none. */
  superseded: string | null;
  /** Every KYC a start claimed, oldest first (a KYC pending but not here was started before the claims). */
  claimed: string[];
}

/** The stream of a user's starts of one kind (`kycstart-<userId>-<type>[-<rfiSubtype>]`). */
export const kycStartClaimsStream = (userId: string, type: HostedKycType, rfiSubtype?: RfiSubtype): string =>
  ['kycstart', userId, type, ...(rfiSubtype ? [rfiSubtype] : [])].join('-');

export function decideKycStartClaim(command: ClaimKycStart, state: KycStartClaims): KycStartClaimed[] {
  if (state.latest === command.data.kycId) return [];
  return [{ type: 'KycStartClaimed', data: { kycId: command.data.kycId, at: command.data.now } }];
}

export const kycStartClaimsDecider: Decider<ClaimKycStart, KycStartClaimed, KycStartClaims> = {
  decide: decideKycStartClaim,
  evolve: (state, event) => ({
    latest: event.data.kycId,
    superseded: state.latest,
    claimed: [...state.claimed, event.data.kycId],
  }),
  initialState: () => ({ latest: null, superseded: null, claimed: [] }),
  events: domainEventReader<KycStartClaimed>(),
};
