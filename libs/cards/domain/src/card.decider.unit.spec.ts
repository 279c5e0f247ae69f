import { deciderSpec } from '@cip/shared/testing';
import type { ApplyUserStatus, CardCommand, CardStatusCommand, CreateCard } from './card.commands';
import { cardDecider } from './card.decider';
import type { CardEvent, CardStatusChanged } from './card.events';
import { CARD_ID, created, CREATED_AT, ISSUED, LATER, OWNER } from './card.spec-fixtures';
import type { CardStatus } from './card.types';

const spec = deciderSpec(cardDecider);

const createCard = (): CreateCard => ({
  type: 'CreateCard',
  data: { ...OWNER, type: 'virtual', issued: ISSUED, now: CREATED_AT },
});

const command = (type: CardStatusCommand['type']): CardCommand => ({
  type,
  data: { now: LATER },
});

const change = (type: CardStatusChanged['type'], previousStatus: CardStatus): CardEvent => ({
  type,
  data: { cardId: CARD_ID, previousStatus, at: LATER },
});

const frozen = change('CardFrozen', 'active');
const revoked = change('CardRevoked', 'active');

describe('creating a card', () => {
  it('records a virtual card as active, with the vault reference and printed data only', () => {
    spec
      .given([])
      .when(createCard())
      .then([created('active')]);
  });

  it('carries no PAN or CVV: the event holds exactly the vault reference, BIN, last4 and expiry', () => {
    const [event] = cardDecider.decide(createCard(), cardDecider.initialState());
    expect(Object.keys(event.data).sort()).toEqual(
      [
        'bin',
        'cardId',
        'createdAt',
        'distributorId',
        'expMonth',
        'expYear',
        'last4',
        'status',
        'type',
        'userId',
        'vaultRef',
        'walletId',
      ].sort(),
    );
  });

  it('refuses to create a card that already exists', () => {
    spec.given([created()]).when(createCard()).thenThrows('invalid_state_transition', new RegExp(CARD_ID));
  });
});

describe('the transitions of spec part 3', () => {
  it('activates an inactive card', () => {
    spec
      .given([created('inactive')])
      .when(command('ActivateCard'))
      .then([change('CardActivated', 'inactive')]);
  });

  it('freezes an active card', () => {
    spec.given([created()]).when(command('FreezeCard')).then([frozen]);
  });

  it('unfreezes a frozen card back to active', () => {
    spec
      .given([created(), frozen])
      .when(command('UnfreezeCard'))
      .then([change('CardUnfrozen', 'frozen')]);
  });

  it('revokes an inactive, an active or a frozen card', () => {
    spec
      .given([created('inactive')])
      .when(command('RevokeCard'))
      .then([change('CardRevoked', 'inactive')]);
    spec.given([created()]).when(command('RevokeCard')).then([revoked]);
    spec
      .given([created(), frozen])
      .when(command('RevokeCard'))
      .then([change('CardRevoked', 'frozen')]);
  });

  it('follows the status through the events (active, frozen, active, revoked)', () => {
    const state = [created(), frozen, change('CardUnfrozen', 'frozen'), revoked].reduce(
      cardDecider.evolve,
      cardDecider.initialState(),
    );
    expect(state).toMatchObject({ status: 'revoked', updatedAt: LATER, createdAt: CREATED_AT });
  });
});

describe('a status the card already has changes nothing (retries are harmless)', () => {
  it.each([
    ['ActivateCard', [created()]],
    ['UnfreezeCard', [created()]],
    ['FreezeCard', [created(), frozen]],
    ['RevokeCard', [created(), revoked]],
  ] as const)('%s', (type, given) => {
    spec
      .given([...given])
      .when(command(type))
      .thenNothing();
  });
});

describe('refused transitions', () => {
  it('a revoked card is terminal: it cannot be activated, frozen or unfrozen', () => {
    for (const type of ['ActivateCard', 'FreezeCard', 'UnfreezeCard'] as const) {
      spec
        .given([created(), revoked])
        .when(command(type))
        .thenThrows('invalid_state_transition', /revoked/);
    }
  });

  it('a frozen card is unfrozen, not activated', () => {
    spec
      .given([created(), frozen])
      .when(command('ActivateCard'))
      .thenThrows('invalid_state_transition', /frozen/);
  });

  it('an inactive card is activated first: it cannot be frozen or unfrozen', () => {
    spec
      .given([created('inactive')])
      .when(command('FreezeCard'))
      .thenThrows('invalid_state_transition');
    spec
      .given([created('inactive')])
      .when(command('UnfreezeCard'))
      .thenThrows('invalid_state_transition');
  });

  it('a card that does not exist is not found', () => {
    for (const type of ['ActivateCard', 'FreezeCard', 'UnfreezeCard', 'RevokeCard'] as const) {
      spec.given([]).when(command(type)).thenThrows('not_found');
    }
  });
});

// ---------------------------------------------------------------------------------------------------
// The card follows its user (the user-stopped-cards saga)
// ---------------------------------------------------------------------------------------------------

describe('a user status change applied to a card', () => {
  const REASON = 'User usr-4b7e is frozen: suspicious activity';
  const user = (userStatus: ApplyUserStatus['data']['userStatus'], cause = `user:${userStatus}-1`) => ({
    type: 'ApplyUserStatus' as const,
    data: { userStatus, reason: REASON, cause, now: LATER },
  });
  const frozenByUser: CardEvent = {
    type: 'CardFrozen',
    data: {
      cardId: CARD_ID,
      previousStatus: 'active',
      block: 'user_frozen',
      reason: REASON,
      cause: 'user:frozen-1',
      at: LATER,
    },
  };

  it('freezes an active card with the user block, its reason and cause', () => {
    spec.given([created()]).when(user('frozen')).then([frozenByUser]);
  });

  it('places only the block on a card its distributor had frozen already', () => {
    spec
      .given([created(), frozen])
      .when(user('frozen'))
      .then([
        {
          type: 'CardBlockPlaced',
          data: { cardId: CARD_ID, block: 'user_frozen', reason: REASON, cause: 'user:frozen-1', at: LATER },
        },
      ]);
  });

  it.each(['disabled', 'revoked', 'deleted'] as const)('revokes the card of a %s user', (userStatus) => {
    for (const history of [[created()], [created(), frozenByUser]]) {
      spec
        .given(history)
        .when(user(userStatus))
        .then([
          {
            type: 'CardRevoked',
            data: {
              cardId: CARD_ID,
              previousStatus: history.length === 1 ? 'active' : 'frozen',
              reason: REASON,
              cause: `user:${userStatus}-1`,
              at: LATER,
            },
          },
        ]);
    }
  });

  it('changes nothing for a cause it has applied, even after the distributor changed the card since', () => {
    const lifted: CardEvent = {
      type: 'CardBlockLifted',
      data: { cardId: CARD_ID, block: 'user_frozen', cause: 'user:active-1', at: LATER },
    };
    spec.given([created(), frozenByUser]).when(user('frozen')).then([]);
    spec
      .given([created(), frozenByUser, lifted, change('CardUnfrozen', 'frozen')])
      .when(user('frozen'))
      .then([]);
  });

  it('changes nothing on a revoked card', () => {
    spec.given([created(), revoked]).when(user('frozen')).then([]);
    spec.given([created(), revoked]).when(user('deleted')).then([]);
  });

  it('refuses the distributor an unfreeze while the user block holds (spec part 7)', () => {
    spec
      .given([created(), frozenByUser])
      .when(command('UnfreezeCard'))
      .thenThrows('card_unfreeze_blocked_error', /cannot be unfrozen due to additional blocks/);
  });

  it('lifts the block when the user is active again, but leaves the card frozen for its distributor', () => {
    const lifted: CardEvent = {
      type: 'CardBlockLifted',
      data: { cardId: CARD_ID, block: 'user_frozen', cause: 'user:active-1', at: LATER },
    };
    spec.given([created(), frozenByUser]).when(user('active')).then([lifted]);
    const state = [created(), frozenByUser, lifted].reduce(cardDecider.evolve, cardDecider.initialState());
    expect(state).toMatchObject({ status: 'frozen', blocks: [] });
    spec
      .given([created(), frozenByUser, lifted])
      .when(command('UnfreezeCard'))
      .then([change('CardUnfrozen', 'frozen')]);
    spec.given([created()]).when(user('active')).then([]);
  });
});

// ---------------------------------------------------------------------------------------------------
// Spending controls
// ---------------------------------------------------------------------------------------------------

describe('replacing the spending controls', () => {
  const update = (changes: object = {}): CardCommand => ({
    type: 'UpdateSpendingControls',
    data: {
      update: { limits: [{ amount: 500_000_000, interval: 'daily' }], blockedMccs: ['5812'], ...changes },
      now: LATER,
    },
  });
  const updated: CardEvent = {
    type: 'CardSpendingControlsUpdated',
    data: {
      cardId: CARD_ID,
      spendingControls: {
        limits: [{ amount: 500_000_000, interval: 'daily' }],
        blockedMccGroups: ['quasi_cash', 'money_transfer', 'gambling', 'weapons', 'crypto'],
        blockedMccs: ['5812'],
        allowedMccs: [],
      },
      at: LATER,
    },
  };

  it('records the validated controls, the program groups kept when omitted', () => {
    spec.given([created()]).when(update()).then([updated]);
  });

  it('starts from the program defaults and keeps what was set', () => {
    expect(
      cardDecider.evolve(cardDecider.evolve(cardDecider.initialState(), created()), updated),
    ).toMatchObject({ spendingControls: updated.data.spendingControls, updatedAt: LATER });
    expect(cardDecider.evolve(cardDecider.initialState(), created())).toMatchObject({
      spendingControls: null,
    });
  });

  it('changes nothing when the card already has these controls (a retry)', () => {
    spec.given([created(), updated]).when(update()).then([]);
  });

  it('refuses an invalid update, naming the field, and a revoked card', () => {
    spec
      .given([created()])
      .when(update({ blockedMccs: ['58x2'] }))
      .thenThrows('validation_error', /blockedMccs\.0/);
    spec
      .given([created(), revoked])
      .when(update())
      .thenThrows('invalid_state_transition', /revoked/);
  });
});

// ---------------------------------------------------------------------------------------------------
// Reveal audit (POST /v1/cards/{id}/reveal and its hosted page)
// ---------------------------------------------------------------------------------------------------

describe("revealing a card's details", () => {
  const EXPIRES_AT = '2026-11-24T08:31:00.000Z';
  const issueLink: CardCommand = { type: 'IssueRevealLink', data: { expiresAt: EXPIRES_AT, now: LATER } };
  const recordReveal: CardCommand = {
    type: 'RecordCardReveal',
    data: { linkRequestId: 'req-link', now: LATER },
  };
  const linkIssued: CardEvent = {
    type: 'CardRevealLinkIssued',
    data: { cardId: CARD_ID, expiresAt: EXPIRES_AT, at: LATER },
  };
  const revealed: CardEvent = {
    type: 'CardDetailsRevealed',
    data: { cardId: CARD_ID, linkRequestId: 'req-link', at: LATER },
  };

  it('records a link asked for, and a reveal through it, on an active, inactive or frozen card', () => {
    for (const given of [[created()], [created('inactive')], [created(), frozen]]) {
      spec.given(given).when(issueLink).then([linkIssued]);
      spec.given(given).when(recordReveal).then([revealed]);
    }
  });

  it('records every link and every reveal: each is its own occurrence', () => {
    spec.given([created(), linkIssued, revealed]).when(issueLink).then([linkIssued]);
  });

  it('changes nothing of the card, not even its updatedAt', () => {
    const card = cardDecider.evolve(cardDecider.initialState(), created());
    expect(cardDecider.evolve(cardDecider.evolve(card, linkIssued), revealed)).toEqual(card);
  });

  it('refuses a revoked card, a link and a reveal alike', () => {
    spec
      .given([created(), revoked])
      .when(issueLink)
      .thenThrows('invalid_state_transition', /revoked/);
    spec
      .given([created(), revoked])
      .when(recordReveal)
      .thenThrows('invalid_state_transition', /revoked/);
  });

  it('does not find a card that does not exist', () => {
    spec.given([]).when(issueLink).thenThrows('not_found');
    spec.given([]).when(recordReveal).thenThrows('not_found');
  });
});
