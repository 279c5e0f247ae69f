import { deciderSpec } from '@cip/shared/testing';
import type { RequestToken } from './token.commands';
import { tokenDecider } from './token.decider';
import type { TokenEvent, TokenRequested } from './token.events';
import type { TokenStatus } from './token.types';

const spec = deciderSpec(tokenDecider);

const TOKEN_ID = 'tkn-1';
const CARD_ID = 'crd-1';
const AT = '2026-11-23T10:00:00.000Z';
const LATER = '2026-11-23T11:00:00.000Z';

const request = (overrides: Partial<RequestToken['data']> = {}): RequestToken => ({
  type: 'RequestToken',
  data: {
    tokenId: TOKEN_ID,
    distributorId: 'dst-1',
    cardId: CARD_ID,
    userId: 'usr-1',
    cardStatus: 'active',
    digitalWalletName: 'googlePay',
    tokenReferenceId: 'DNITHE0001',
    provisioning: 'push',
    deviceId: 'device-1',
    walletAccountId: 'wallet-1',
    now: AT,
    ...overrides,
  },
});

const requested = (overrides: Partial<TokenRequested['data']> = {}): TokenRequested => ({
  type: 'TokenRequested',
  data: {
    tokenId: TOKEN_ID,
    distributorId: 'dst-1',
    cardId: CARD_ID,
    userId: 'usr-1',
    digitalWalletName: 'googlePay',
    tokenReferenceId: 'DNITHE0001',
    provisioning: 'push',
    deviceId: 'device-1',
    walletAccountId: 'wallet-1',
    createdAt: AT,
    ...overrides,
  },
});

const activated: TokenEvent = {
  type: 'TokenActivated',
  data: { tokenId: TOKEN_ID, cardId: CARD_ID, at: AT },
};
const change = (previousStatus: TokenStatus, cardStatus: string) => ({
  tokenId: TOKEN_ID,
  cardId: CARD_ID,
  previousStatus,
  cardStatus,
  at: LATER,
});
const suspended = (previousStatus: 'pending_activation' | 'active'): TokenEvent => ({
  type: 'TokenSuspended',
  data: { ...change(previousStatus, 'frozen'), previousStatus },
});
const deleted: TokenEvent = {
  type: 'TokenDeleted',
  data: { ...change('active', 'revoked'), previousStatus: 'active' },
};

const follow = (cardStatus: string) => ({ type: 'FollowCard' as const, data: { cardStatus, now: LATER } });
const activate = (cardStatus = 'active') => ({
  type: 'ActivateToken' as const,
  data: { cardStatus, now: LATER },
});

describe('token decider', () => {
  describe('RequestToken', () => {
    it('records a token waiting for activation, with the wallet it was pushed to', () => {
      spec.given([]).when(request()).then([requested()]);
    });

    it('records a manually provisioned token without a device', () => {
      spec
        .given([])
        .when(request({ provisioning: 'manual', deviceId: undefined, walletAccountId: undefined }))
        .then([requested({ provisioning: 'manual', deviceId: null, walletAccountId: null })]);
    });

    it.each(['frozen', 'inactive', 'revoked'])('refuses a %s card', (cardStatus) => {
      spec
        .given([])
        .when(request({ cardStatus }))
        .thenThrows('card_not_active', /crd-1 is/);
    });

    it('refuses a token id that exists', () => {
      spec.given([requested()]).when(request()).thenThrows('invalid_state_transition');
    });
  });

  describe('DeliverActivationCode', () => {
    const deliver = (overrides: object = {}) => ({
      type: 'DeliverActivationCode' as const,
      data: {
        activationMethod: 'email' as const,
        activationCode: '123456',
        emailAddress: 'ada@example.com',
        phone: null,
        now: LATER,
        ...overrides,
      },
    });

    it('sends the code to the e-mail address (and only that) for email', () => {
      spec
        .given([requested()])
        .when(deliver())
        .then([
          {
            type: 'TokenActivationCodeDelivered',
            data: {
              tokenId: TOKEN_ID,
              cardId: CARD_ID,
              userId: 'usr-1',
              activationMethod: 'email',
              activationCode: '123456',
              emailAddress: 'ada@example.com',
              at: LATER,
            },
          },
        ]);
    });

    it('sends the code to the phone (and only that) for sms', () => {
      const phone = { country: '+33', number: '612345678' };
      spec
        .given([requested()])
        .when(deliver({ activationMethod: 'sms', phone }))
        .then([
          {
            type: 'TokenActivationCodeDelivered',
            data: {
              tokenId: TOKEN_ID,
              cardId: CARD_ID,
              userId: 'usr-1',
              activationMethod: 'sms',
              activationCode: '123456',
              phone,
              at: LATER,
            },
          },
        ]);
    });

    it('refuses sms to a user without a phone', () => {
      spec
        .given([requested()])
        .when(deliver({ activationMethod: 'sms', phone: null }))
        .thenThrows('activation_method_unavailable', /no phone number/);
    });

    it('refuses email to a user without an e-mail address (erased)', () => {
      spec
        .given([requested()])
        .when(deliver({ emailAddress: null }))
        .thenThrows('activation_method_unavailable');
    });

    it('refuses a click-to-pay token (no activation code in the spec)', () => {
      spec
        .given([requested({ digitalWalletName: 'remoteCommercePrograms' })])
        .when(deliver())
        .thenThrows('validation_error');
    });

    it('refuses a token that is not waiting for activation', () => {
      spec.given([requested(), activated]).when(deliver()).thenThrows('invalid_state_transition');
    });

    it('refuses a token that does not exist', () => {
      spec.given([]).when(deliver()).thenThrows('not_found');
    });
  });

  describe('ActivateToken', () => {
    it('activates a pending token', () => {
      spec
        .given([requested()])
        .when(activate())
        .then([{ type: 'TokenActivated', data: { tokenId: TOKEN_ID, cardId: CARD_ID, at: LATER } }]);
    });

    it('changes nothing on an active token (a retry)', () => {
      spec.given([requested(), activated]).when(activate()).thenNothing();
    });

    it('refuses while the card is not active', () => {
      spec.given([requested()]).when(activate('frozen')).thenThrows('card_not_active');
    });

    it('refuses a suspended token', () => {
      spec
        .given([requested(), suspended('pending_activation')])
        .when(activate())
        .thenThrows('invalid_state_transition');
    });

    it('refuses a deleted token', () => {
      spec.given([requested(), deleted]).when(activate()).thenThrows('invalid_state_transition');
    });

    it('refuses a token that does not exist', () => {
      spec.given([]).when(activate()).thenThrows('not_found');
    });
  });

  describe('FollowCard', () => {
    it('suspends an active token when the card is frozen', () => {
      spec
        .given([requested(), activated])
        .when(follow('frozen'))
        .then([suspended('active')]);
    });

    it('suspends a pending token when the card is frozen', () => {
      spec
        .given([requested()])
        .when(follow('frozen'))
        .then([suspended('pending_activation')]);
    });

    it('changes nothing on a suspended token while the card stays frozen (a redelivery)', () => {
      spec
        .given([requested(), activated, suspended('active')])
        .when(follow('frozen'))
        .thenNothing();
    });

    it('resumes a suspended token to active when it had been activated', () => {
      spec
        .given([requested(), activated, suspended('active')])
        .when(follow('active'))
        .then([{ type: 'TokenResumed', data: { ...change('suspended', 'active'), status: 'active' } }]);
    });

    it('resumes a suspended token to pending_activation when it never was', () => {
      spec
        .given([requested(), suspended('pending_activation')])
        .when(follow('active'))
        .then([
          { type: 'TokenResumed', data: { ...change('suspended', 'active'), status: 'pending_activation' } },
        ]);
    });

    it('changes nothing on an active token of an active card (a late freeze event after the unfreeze)', () => {
      spec.given([requested(), activated]).when(follow('active')).thenNothing();
    });

    it.each([
      ['pending_activation', [requested()]],
      ['active', [requested(), activated]],
      ['suspended', [requested(), activated, suspended('active')]],
    ] as const)('deletes a %s token when the card is revoked', (previousStatus, given) => {
      spec
        .given([...given])
        .when(follow('revoked'))
        .then([{ type: 'TokenDeleted', data: change(previousStatus, 'revoked') }]);
    });

    it.each(['revoked', 'active', 'frozen'])('changes nothing on a deleted token (card %s)', (cardStatus) => {
      spec.given([requested(), activated, deleted]).when(follow(cardStatus)).thenNothing();
    });

    it('refuses a token that does not exist', () => {
      spec.given([]).when(follow('frozen')).thenThrows('not_found');
    });
  });

  describe('ProvisionManually', () => {
    const provision = (activation: object | null, overrides: object = {}) => ({
      type: 'ProvisionManually' as const,
      data: {
        tokenId: TOKEN_ID,
        distributorId: 'dst-1',
        cardId: CARD_ID,
        userId: 'usr-1',
        cardStatus: 'active',
        digitalWalletName: 'applePay' as const,
        tokenReferenceId: 'DNITHE0001',
        now: AT,
        activation: activation as never,
        ...overrides,
      },
    });
    const manual = requested({
      digitalWalletName: 'applePay',
      provisioning: 'manual',
      deviceId: null,
      walletAccountId: null,
    });

    it('records the token, the activation code sent by sms, and the activation, in that order', () => {
      const phone = { country: '+33', number: '612345678' };
      spec
        .given([])
        .when(provision({ activationMethod: 'sms', activationCode: '004211', phone, emailAddress: 'a@b.c' }))
        .then([
          manual,
          {
            type: 'TokenActivationCodeDelivered',
            data: {
              tokenId: TOKEN_ID,
              cardId: CARD_ID,
              userId: 'usr-1',
              activationMethod: 'sms',
              activationCode: '004211',
              phone,
              at: AT,
            },
          },
          activated,
        ]);
    });

    it('activates at once without an activation method (a click-to-pay program)', () => {
      spec
        .given([])
        .when(provision(null, { digitalWalletName: 'remoteCommercePrograms' }))
        .then([
          { ...manual, data: { ...manual.data, digitalWalletName: 'remoteCommercePrograms' } },
          activated,
        ]);
    });

    it('refuses all of it when the code cannot be delivered', () => {
      spec
        .given([])
        .when(provision({ activationMethod: 'email', activationCode: '1', emailAddress: null }))
        .thenThrows('activation_method_unavailable');
    });

    it('refuses all of it for a card that is not active', () => {
      spec
        .given([])
        .when(provision(null, { cardStatus: 'frozen' }))
        .thenThrows('card_not_active');
    });
  });
});
