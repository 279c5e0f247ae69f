import { deciderSpec } from '@cip/shared/testing';
import type { ChallengeCardholder } from './card-authentication.commands';
import { cardAuthenticationDecider } from './card-authentication.decider';
import type {
  CardAuthenticationChallenged,
  CardAuthenticationDecided,
  CardAuthenticationEvent,
} from './card-authentication.events';

const spec = deciderSpec(cardAuthenticationDecider);

const ID = 'tds-0b6f1c2e-3a4d-4e5f-8a9b-0c1d2e3f4a5b';
const AT = '2026-11-23T10:00:00.000Z';
const BEFORE_DEADLINE = '2026-11-23T10:04:59.999Z';
const DEADLINE = '2026-11-23T10:05:00.000Z';
const LATER = '2026-11-23T10:06:00.000Z';

const challengeData = {
  cardAuthenticationId: ID,
  distributorId: 'dst-1',
  userId: 'usr-1',
  cardId: 'crd-1',
  walletId: 'wlt-1',
  walletAddress: '0xabc',
  purpose: 'payment' as const,
  merchantName: 'Corner Shop',
  maskedPan: '424242******4242',
  merchantAmount: '42.50',
  merchantCurrency: 'EUR',
  threedsRequestorAppUrl: 'https://merchant.example/app',
  expiresAt: DEADLINE,
  transaction: {
    messageVersion: '2.2.0',
    messageCategory: '01' as const,
    threeDSServerTransID: '11111111-1111-4111-8111-111111111111',
    dsTransID: '22222222-2222-4222-8222-222222222222',
    dsURL: 'https://ds.example/rreq',
    authenticationType: '04' as const,
    notificationURL: null,
  },
};

const challenge: ChallengeCardholder = { type: 'ChallengeCardholder', data: { ...challengeData, now: AT } };
const challenged: CardAuthenticationChallenged = {
  type: 'CardAuthenticationChallenged',
  data: { ...challengeData, createdAt: AT },
};
const decided = (
  outcome: CardAuthenticationDecided['data']['outcome'],
  at: string,
): CardAuthenticationDecided => ({
  type: 'CardAuthenticationDecided',
  data: {
    cardAuthenticationId: ID,
    outcome,
    transStatus: outcome === 'accepted' ? 'Y' : 'N',
    transStatusReason: outcome === 'accepted' ? null : outcome === 'rejected' ? '01' : '14',
    authenticationValue: outcome === 'accepted' ? 'AAABBBCCCDDDEEEFFFGGGHHHIII=' : null,
    eci: outcome === 'accepted' ? '05' : null,
    at,
  },
});
const notified: CardAuthenticationEvent = {
  type: 'CardAuthenticationResultNotified',
  data: { cardAuthenticationId: ID, resultsStatus: '01', at: LATER },
};

const accept = (now: string) => ({
  type: 'AcceptCardAuthentication' as const,
  data: { authenticationValue: 'AAABBBCCCDDDEEEFFFGGGHHHIII=', eci: '05', now },
});
const reject = (now: string) => ({ type: 'RejectCardAuthentication' as const, data: { now } });
const expire = (now: string) => ({ type: 'ExpireCardAuthentication' as const, data: { now } });
const recordNotified = { type: 'RecordResultNotified' as const, data: { resultsStatus: '01', now: LATER } };

describe('card authentication decider', () => {
  describe('ChallengeCardholder', () => {
    it('records the challenge with every field cardAuthentication.created carries', () => {
      spec.given([]).when(challenge).then([challenged]);
    });

    it('refuses an id that exists', () => {
      spec.given([challenged]).when(challenge).thenThrows('invalid_state_transition');
    });
  });

  describe('AcceptCardAuthentication', () => {
    it('decides Y with the authentication value and ECI before the deadline', () => {
      spec
        .given([challenged])
        .when(accept(BEFORE_DEADLINE))
        .then([decided('accepted', BEFORE_DEADLINE)]);
    });

    it('is late at the deadline itself: card_authentication_expired, nothing recorded', () => {
      spec
        .given([challenged])
        .when(accept(DEADLINE))
        .thenThrows('card_authentication_expired', /expired at/);
    });

    it('is refused once expired', () => {
      spec
        .given([challenged, decided('expired', DEADLINE)])
        .when(accept(LATER))
        .thenThrows('card_authentication_expired');
    });

    it.each(['accepted', 'rejected'] as const)('is refused once %s (a second answer)', (outcome) => {
      spec
        .given([challenged, decided(outcome, AT)])
        .when(accept(BEFORE_DEADLINE))
        .thenThrows('invalid_state_transition', new RegExp(`already ${outcome}`));
    });

    it('does not know an authentication that was never challenged', () => {
      spec.given([]).when(accept(AT)).thenThrows('not_found');
    });
  });

  describe('RejectCardAuthentication', () => {
    it('decides N with reason 01 before the deadline', () => {
      spec
        .given([challenged])
        .when(reject(BEFORE_DEADLINE))
        .then([decided('rejected', BEFORE_DEADLINE)]);
    });

    it('is late at the deadline', () => {
      spec.given([challenged]).when(reject(DEADLINE)).thenThrows('card_authentication_expired');
    });

    it('is refused once answered', () => {
      spec
        .given([challenged, decided('accepted', AT)])
        .when(reject(AT))
        .thenThrows('invalid_state_transition');
    });

    it('does not know an authentication that was never challenged', () => {
      spec.given([]).when(reject(AT)).thenThrows('not_found');
    });
  });

  describe('ExpireCardAuthentication', () => {
    it('fails closed at the deadline: N with reason 14', () => {
      spec
        .given([challenged])
        .when(expire(DEADLINE))
        .then([decided('expired', DEADLINE)]);
    });

    it('leaves a challenge alone before its deadline', () => {
      spec.given([challenged]).when(expire(BEFORE_DEADLINE)).thenNothing();
    });

    it.each(['accepted', 'rejected', 'expired'] as const)(
      'leaves a %s one alone (exactly once)',
      (outcome) => {
        spec
          .given([challenged, decided(outcome, AT)])
          .when(expire(LATER))
          .thenNothing();
      },
    );
  });

  describe('RecordResultNotified', () => {
    it('records the directory server acknowledgement of the RReq', () => {
      spec
        .given([challenged, decided('accepted', AT)])
        .when(recordNotified)
        .then([notified]);
    });

    it('records it once', () => {
      spec
        .given([challenged, decided('accepted', AT), notified])
        .when(recordNotified)
        .thenNothing();
    });

    it('refuses a pending challenge (no result was sent)', () => {
      spec.given([challenged]).when(recordNotified).thenThrows('invalid_state_transition');
    });
  });
});
