import { deciderSpec } from '@cip/shared/testing';
import type { CardCommand, CardStatusCommand } from './card.commands';
import { cardDecider } from './card.decider';
import type { CardEvent } from './card.events';
import { CARD_ID, created, LATER } from './card.spec-fixtures';
import type { CardHold, CardStatus, CardVerificationMethod } from './card.types';

const spec = deciderSpec(cardDecider);

const REASON = 'Sanctions screening match, case CMP-118';
const BY = 'operator:ada';

const distributor = (type: CardStatusCommand['type']): CardCommand => ({ type, data: { now: LATER } });
const frozenByDistributor: CardEvent = {
  type: 'CardFrozen',
  data: { cardId: CARD_ID, previousStatus: 'active', at: LATER },
};
const revoked: CardEvent = {
  type: 'CardRevoked',
  data: { cardId: CARD_ID, previousStatus: 'active', at: LATER },
};

const placeHold = (hold: CardHold = 'compliance_hold'): CardCommand => ({
  type: 'PlaceHold',
  data: { hold, reason: REASON, operator: 'ada', now: LATER },
});
const liftHold = (hold: CardHold = 'compliance_hold'): CardCommand => ({
  type: 'LiftHold',
  data: { hold, reason: 'Cleared, case CMP-118', operator: 'ada', now: LATER },
});
const heldFrom = (hold: CardHold = 'compliance_hold'): CardEvent => ({
  type: 'CardFrozen',
  data: { cardId: CARD_ID, previousStatus: 'active', block: hold, reason: REASON, by: BY, at: LATER },
});
const holdPlaced = (hold: CardHold = 'compliance_hold'): CardEvent => ({
  type: 'CardBlockPlaced',
  data: { cardId: CARD_ID, block: hold, reason: REASON, by: BY, at: LATER },
});
const holdLifted = (hold: CardHold = 'compliance_hold'): CardEvent => ({
  type: 'CardBlockLifted',
  data: { cardId: CARD_ID, block: hold, reason: 'Cleared, case CMP-118', by: BY, at: LATER },
});

const stateOf = (events: CardEvent[]) => events.reduce(cardDecider.evolve, cardDecider.initialState());

describe('operator holds (compliance, fraud)', () => {
  it.each(['compliance_hold', 'fraud_hold'] as const)(
    'a %s freezes an active card, naming the operator and the reason',
    (hold) => {
      spec
        .given([created()])
        .when(placeHold(hold))
        .then([heldFrom(hold)]);
      expect(stateOf([created(), heldFrom(hold)])).toMatchObject({ status: 'frozen', blocks: [hold] });
    },
  );

  it('places only the block on a card frozen already (by its distributor, or by another hold)', () => {
    spec.given([created(), frozenByDistributor]).when(placeHold()).then([holdPlaced()]);
    spec
      .given([created(), heldFrom('fraud_hold')])
      .when(placeHold())
      .then([holdPlaced()]);
    expect(stateOf([created(), heldFrom('fraud_hold'), holdPlaced()])).toMatchObject({
      status: 'frozen',
      blocks: ['fraud_hold', 'compliance_hold'],
    });
  });

  it('places only the block on an inactive card, whose activation is then refused until it is lifted', () => {
    spec
      .given([created('inactive')])
      .when(placeHold())
      .then([holdPlaced()]);
    spec
      .given([created('inactive'), holdPlaced()])
      .when(distributor('ActivateCard'))
      .thenThrows('invalid_state_transition', /cannot be activated while blocked: compliance_hold/);
    spec
      .given([created('inactive'), holdPlaced(), holdLifted()])
      .when(distributor('ActivateCard'))
      .then([{ type: 'CardActivated', data: { cardId: CARD_ID, previousStatus: 'inactive', at: LATER } }]);
  });

  it('changes nothing when the hold is on already (a retry)', () => {
    spec.given([created(), heldFrom()]).when(placeHold()).then([]);
  });

  it('refuses to hold a revoked card or a card that does not exist', () => {
    spec
      .given([created(), revoked])
      .when(placeHold())
      .thenThrows('invalid_state_transition', /revoked: it cannot be held/);
    spec.given([]).when(placeHold()).thenThrows('not_found');
  });

  it("refuses the distributor's unfreeze while a hold exists, naming the blocks (spec part 7)", () => {
    spec
      .given([created(), heldFrom()])
      .when(distributor('UnfreezeCard'))
      .thenThrows(
        'card_unfreeze_blocked_error',
        /cannot be unfrozen due to additional blocks: compliance_hold/,
      );
    spec
      .given([created(), frozenByDistributor, holdPlaced('fraud_hold')])
      .when(distributor('UnfreezeCard'))
      .thenThrows('card_unfreeze_blocked_error', /fraud_hold/);
  });

  it('lifting a hold leaves the card frozen; its distributor may unfreeze it then', () => {
    spec.given([created(), heldFrom()]).when(liftHold()).then([holdLifted()]);
    expect(stateOf([created(), heldFrom(), holdLifted()])).toMatchObject({ status: 'frozen', blocks: [] });
    spec
      .given([created(), heldFrom(), holdLifted()])
      .when(distributor('UnfreezeCard'))
      .then([{ type: 'CardUnfrozen', data: { cardId: CARD_ID, previousStatus: 'frozen', at: LATER } }]);
  });

  it('lifting one hold while another remains still refuses the unfreeze', () => {
    const history = [
      created(),
      heldFrom('fraud_hold'),
      holdPlaced('compliance_hold'),
      holdLifted('fraud_hold'),
    ];
    spec
      .given(history)
      .when(distributor('UnfreezeCard'))
      .thenThrows('card_unfreeze_blocked_error', /compliance_hold/);
  });

  it('refuses to lift a hold that is not on the card, or on a revoked card', () => {
    spec
      .given([created(), heldFrom('fraud_hold')])
      .when(liftHold('compliance_hold'))
      .thenThrows('invalid_state_transition', /has no compliance_hold to lift/);
    spec.given([created()]).when(liftHold()).thenThrows('invalid_state_transition');
    spec
      .given([created(), heldFrom(), revoked])
      .when(liftHold())
      .thenThrows('invalid_state_transition', /revoked/);
  });

  it('a held card may still be revoked by its distributor (terminal)', () => {
    spec
      .given([created(), heldFrom()])
      .when(distributor('RevokeCard'))
      .then([{ type: 'CardRevoked', data: { cardId: CARD_ID, previousStatus: 'frozen', at: LATER } }]);
  });
});

// ---------------------------------------------------------------------------------------------------
// Wrong PIN/CVV2 entries
// ---------------------------------------------------------------------------------------------------

describe('wrong PIN/CVV2 entries block the card after three in a row', () => {
  const verify = (
    authorizationId: string,
    ok: boolean,
    method: CardVerificationMethod = 'pin',
  ): CardCommand => ({
    type: 'RecordVerification',
    data: { authorizationId, method, ok, now: LATER },
  });
  const failed = (
    authorizationId: string,
    consecutiveFailures: number,
    method: CardVerificationMethod = 'pin',
  ): CardEvent => ({
    type: 'CardVerificationFailed',
    data: { cardId: CARD_ID, authorizationId, method, consecutiveFailures, at: LATER },
  });
  const passed = (authorizationId: string): CardEvent => ({
    type: 'CardVerificationPassed',
    data: { cardId: CARD_ID, authorizationId, method: 'pin', at: LATER },
  });
  const blocked = (previousStatus: CardStatus = 'active'): CardEvent => ({
    type: 'CardBlocked',
    data: {
      cardId: CARD_ID,
      previousStatus,
      block: 'pin_cvv_attempts',
      reason: '3 consecutive wrong PIN or CVV2 entries',
      at: LATER,
    },
  });
  const unblock: CardCommand = {
    type: 'UnblockCard',
    data: { reason: 'Cardholder identified, ticket 42', operator: 'ada', now: LATER },
  };
  const unblocked = (status: CardStatus): CardEvent => ({
    type: 'CardUnblocked',
    data: {
      cardId: CARD_ID,
      previousStatus: 'frozen',
      status,
      block: 'pin_cvv_attempts',
      reason: 'Cardholder identified, ticket 42',
      by: BY,
      at: LATER,
    },
  });
  const twoFailures = [created(), failed('aut-1', 1), failed('aut-2', 2, 'cvv2')];

  it('counts wrong entries, PIN and CVV2 together', () => {
    spec
      .given([created()])
      .when(verify('aut-1', false))
      .then([failed('aut-1', 1)]);
    spec
      .given([created(), failed('aut-1', 1)])
      .when(verify('aut-2', false, 'cvv2'))
      .then([failed('aut-2', 2, 'cvv2')]);
  });

  it('the third wrong entry in a row freezes the card with the PIN/CVV2 block (card.blocked)', () => {
    spec
      .given(twoFailures)
      .when(verify('aut-3', false))
      .then([failed('aut-3', 3), blocked()]);
    expect(stateOf([...twoFailures, failed('aut-3', 3), blocked()])).toMatchObject({
      status: 'frozen',
      blocks: ['pin_cvv_attempts'],
    });
  });

  it('blocks once: further wrong entries, right ones and retries on a blocked card change nothing', () => {
    const blockedCard = [...twoFailures, failed('aut-3', 3), blocked()];
    spec.given(blockedCard).when(verify('aut-4', false)).then([]);
    spec.given(blockedCard).when(verify('aut-4', true)).then([]);
    spec.given(blockedCard).when(verify('aut-3', false)).then([]);
  });

  it('a right entry resets the count; one with no wrong entry before records nothing', () => {
    spec
      .given(twoFailures)
      .when(verify('aut-3', true))
      .then([passed('aut-3')]);
    spec
      .given([...twoFailures, passed('aut-3')])
      .when(verify('aut-4', false))
      .then([failed('aut-4', 1)]);
    spec.given([created()]).when(verify('aut-1', true)).then([]);
  });

  it('a retried record of the same authorization and method does not count twice', () => {
    spec
      .given([created(), failed('aut-1', 1)])
      .when(verify('aut-1', false))
      .then([]);
    spec
      .given(twoFailures)
      .when(verify('aut-2', false, 'cvv2'))
      .then([]);
    // The same authorization's other method is another entry.
    spec
      .given([created(), failed('aut-1', 1)])
      .when(verify('aut-1', false, 'cvv2'))
      .then([failed('aut-1', 2, 'cvv2')]);
  });

  it('counts on a frozen card too: the block joins the freeze, the card stays frozen', () => {
    const frozenTwice = [created(), frozenByDistributor, failed('aut-1', 1), failed('aut-2', 2)];
    spec
      .given(frozenTwice)
      .when(verify('aut-3', false))
      .then([failed('aut-3', 3), blocked('frozen')]);
  });

  it('records nothing for an inactive or a revoked card (it authorizes nothing)', () => {
    spec
      .given([created('inactive')])
      .when(verify('aut-1', false))
      .then([]);
    spec.given([created(), revoked]).when(verify('aut-1', false)).then([]);
  });

  it('refuses the distributor an unfreeze of a blocked card: only an operator unblocks it', () => {
    spec
      .given([...twoFailures, failed('aut-3', 3), blocked()])
      .when(distributor('UnfreezeCard'))
      .thenThrows('card_unfreeze_blocked_error', /pin_cvv_attempts/);
  });

  it("an operator's unblock makes the card active again when the block froze it, and the count restarts", () => {
    const blockedCard = [...twoFailures, failed('aut-3', 3), blocked()];
    spec
      .given(blockedCard)
      .when(unblock)
      .then([unblocked('active')]);
    expect(stateOf([...blockedCard, unblocked('active')])).toMatchObject({
      status: 'active',
      blocks: [],
      consecutiveFailures: 0,
    });
    spec
      .given([...blockedCard, unblocked('active')])
      .when(verify('aut-4', false))
      .then([failed('aut-4', 1)]);
  });

  it('the unblock leaves frozen a card its distributor had frozen, or that another block still holds', () => {
    spec
      .given([
        created(),
        frozenByDistributor,
        failed('a', 1),
        failed('b', 2),
        failed('c', 3),
        blocked('frozen'),
      ])
      .when(unblock)
      .then([unblocked('frozen')]);
    spec
      .given([...twoFailures, failed('aut-3', 3), blocked(), holdPlaced()])
      .when(unblock)
      .then([unblocked('frozen')]);
  });

  it('refuses to unblock a card that is not blocked, or revoked', () => {
    spec
      .given([created()])
      .when(unblock)
      .thenThrows('invalid_state_transition', /is not blocked/);
    spec
      .given([created(), heldFrom()])
      .when(unblock)
      .thenThrows('invalid_state_transition', /is not blocked/);
    spec
      .given([
        ...twoFailures,
        failed('aut-3', 3),
        blocked(),
        { ...revoked, data: { ...revoked.data, previousStatus: 'frozen' } },
      ])
      .when(unblock)
      .thenThrows('invalid_state_transition', /revoked/);
    spec.given([]).when(unblock).thenThrows('not_found');
  });
});
