import { approvalOf, ApprovalFacts, needsDeclineHistory } from './kyc-approval.policy';
import type { KycRecord } from './kyc.decider';
import type { IdentitySubmission, KycSubmission, KycType } from './kyc.types';

const address = { addressLine1: '1 rue de la Paix', city: 'Paris', postalCode: '75002', country: 'FR' };
const identity: IdentitySubmission = {
  kind: 'identity',
  firstName: 'Ada',
  lastName: 'Lovelace',
  dateOfBirth: '1990-01-01',
  address,
};

const kyc = (type: KycType, submission: KycSubmission | null): KycRecord => ({
  status: 'completed',
  kycId: 'kyc-1',
  userId: 'usr-1',
  distributorId: 'dst-1',
  type,
  rfiSubtype: type === 'rfi' ? 'onboarding' : null,
  provider: 'sandbox-idv',
  referenceId: 'ref',
  expiresAt: null,
  linkIssuedAt: null,
  submission,
  declinedCode: null,
  userActivated: null,
  userNotActivatedReason: null,
  createdAt: '2026-01-01T00:00:00.000Z',
  updatedAt: '2026-01-01T00:00:00.000Z',
});

const facts = (
  overrides: Partial<ApprovalFacts> & { status?: ApprovalFacts['user']['status'] } = {},
): ApprovalFacts => ({
  user: { status: overrides.status ?? 'onboarding', countryOfResidence: 'FR' },
  allowedCountries: ['FR', 'DE'],
  earlierIdentityKycDeclined: false,
  ...overrides,
});

describe('approving a KYC', () => {
  it('activates the user of a complete identity KYC', () => {
    for (const type of ['full', 'light', 'import'] as const) {
      expect(approvalOf(kyc(type, identity), facts())).toEqual({
        outcome: 'approve',
        userActivated: true,
        activateUser: true,
      });
    }
  });

  it('declines with prohibitedCountry when the residence or the submitted address is outside the program', () => {
    const decline = { outcome: 'decline', declinedCode: 'prohibitedCountry' };
    expect(approvalOf(kyc('full', identity), facts({ allowedCountries: ['DE'] }))).toEqual(decline);
    const elsewhere = { ...identity, address: { ...address, country: 'us' } };
    expect(approvalOf(kyc('full', elsewhere), facts())).toEqual(decline);
  });

  it('verifies without activating a frozen, disabled, revoked or deleted user, naming why', () => {
    const reasons = {
      frozen: 'userFrozen',
      disabled: 'userDisabled',
      revoked: 'userRevoked',
      deleted: 'userDeleted',
    };
    for (const [status, reason] of Object.entries(reasons)) {
      expect(approvalOf(kyc('full', identity), facts({ status: status as 'frozen' }))).toEqual({
        outcome: 'approve',
        userActivated: false,
        userNotActivatedReason: reason,
        activateUser: false,
      });
    }
  });

  it('does not activate after an earlier declined identity KYC, nor on incomplete identity data', () => {
    expect(approvalOf(kyc('light', identity), facts({ earlierIdentityKycDeclined: true }))).toMatchObject({
      userActivated: false,
      userNotActivatedReason: 'previousKycDeclined',
    });
    const { address: _address, ...withoutAddress } = identity;
    expect(approvalOf(kyc('import', withoutAddress), facts())).toMatchObject({
      userActivated: false,
      userNotActivatedReason: 'incompleteDetails',
    });
  });

  it('keeps an active user active (activation is idempotent), whatever the history', () => {
    expect(
      approvalOf(kyc('full', identity), facts({ status: 'active', earlierIdentityKycDeclined: true })),
    ).toEqual({
      outcome: 'approve',
      userActivated: true,
      activateUser: true,
    });
  });

  it("sets the shipping address of a shipping KYC and leaves the user's status alone; an RFI changes nothing", () => {
    const shipping = approvalOf(kyc('shipping', { kind: 'shipping', shippingAddress: address }), facts());
    expect(shipping).toEqual({
      outcome: 'approve',
      userActivated: false,
      activateUser: false,
      shippingAddress: address,
    });
    expect(
      approvalOf(kyc('rfi', { kind: 'rfi', explanation: 'salary' }), facts({ status: 'active' })),
    ).toEqual({
      outcome: 'approve',
      userActivated: true,
      activateUser: false,
    });
  });

  it('asks for the decline history only when it can change the outcome', () => {
    expect(needsDeclineHistory(kyc('full', identity), 'onboarding')).toBe(true);
    expect(needsDeclineHistory(kyc('full', identity), 'active')).toBe(false);
    expect(needsDeclineHistory(kyc('full', identity), 'frozen')).toBe(false);
    expect(needsDeclineHistory(kyc('rfi', null), 'onboarding')).toBe(false);
  });
});
