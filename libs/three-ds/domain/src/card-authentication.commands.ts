import type { CardAuthenticationChallenged } from './card-authentication.events';

// Commands of the card authentication decider: time (`now`), ids and the authentication value arrive in
// the command.

export interface ChallengeCardholder {
  type: 'ChallengeCardholder';
  data: Omit<CardAuthenticationChallenged['data'], 'createdAt'> & { now: string };
}

export interface AcceptCardAuthentication {
  type: 'AcceptCardAuthentication';
  data: { authenticationValue: string; eci: string; now: string };
}

export interface RejectCardAuthentication {
  type: 'RejectCardAuthentication';
  data: { now: string };
}

/** The deadline sweep: expires the challenge if it is still pending and its deadline has passed. */
export interface ExpireCardAuthentication {
  type: 'ExpireCardAuthentication';
  data: { now: string };
}

export interface RecordResultNotified {
  type: 'RecordResultNotified';
  data: { resultsStatus: string; now: string };
}

export type CardAuthenticationCommand =
  | ChallengeCardholder
  | AcceptCardAuthentication
  | RejectCardAuthentication
  | ExpireCardAuthentication
  | RecordResultNotified;
