import { deciderSpec } from '@cip/shared/testing';
import type { KycCommand, StartKyc } from './kyc.commands';
import { KycRecord, kycDecider, linkIsOpen, resumePlan } from './kyc.decider';
import type { KycCreated, KycEvent } from './kyc.events';
import { IdentitySubmission, KycStatus, KycSubmission, KycType, ShippingSubmission } from './kyc.types';

// ---------------------------------------------------------------------------------------------------
// Fixtures
// ---------------------------------------------------------------------------------------------------

const spec = deciderSpec(kycDecider);

const KYC_ID = 'kyc-3f1c9a52';
const USER_ID = 'usr-4b7e2c1a';
const T0 = '2026-03-01T10:00:00.000Z';
const T1 = '2026-03-02T10:00:00.000Z';
const EXPIRES = '2026-03-15T10:00:00.000Z';
const AFTER_EXPIRY = '2026-03-15T10:00:00.001Z';

const identity: IdentitySubmission = {
  kind: 'identity',
  firstName: 'Ada',
  lastName: 'Lovelace',
  dateOfBirth: '1990-12-10',
  address: { addressLine1: '10 rue de Rivoli', city: 'Paris', postalCode: '75001', country: 'FR' },
  documentNumber: 'X1234567',
};
const shipping: ShippingSubmission = {
  kind: 'shipping',
  shippingAddress: { addressLine1: 'Unter den Linden 5', city: 'Berlin', postalCode: '10117', country: 'DE' },
};
const explanation: KycSubmission = { kind: 'rfi', explanation: 'Salary from my employer' };

const start = (overrides: Partial<StartKyc['data']> = {}): StartKyc => ({
  type: 'StartKyc',
  data: {
    kycId: KYC_ID,
    userId: USER_ID,
    distributorId: 'dst-1',
    kycType: 'full',
    provider: 'sandbox-idv',
    referenceId: 'ref-1',
    importEnabled: false,
    now: T0,
    ...overrides,
  },
});

const created = (type: KycType = 'full', overrides: Partial<KycCreated['data']> = {}): KycEvent => ({
  type: 'KycCreated',
  data: {
    kycId: KYC_ID,
    userId: USER_ID,
    distributorId: 'dst-1',
    type,
    rfiSubtype: type === 'rfi' ? 'transaction_monitoring' : null,
    provider: 'sandbox-idv',
    referenceId: 'ref-1',
    expiresAt: type === 'import' ? null : EXPIRES,
    submission: type === 'import' ? identity : null,
    createdAt: T0,
    ...overrides,
  },
});
const pending = (at = T0): KycEvent => ({ type: 'KycPending', data: { kycId: KYC_ID, at } });
const completed = (submission: KycSubmission = identity): KycEvent => ({
  type: 'KycCompleted',
  data: { kycId: KYC_ID, userId: USER_ID, submission, at: T1 },
});
const verified: KycEvent = {
  type: 'KycVerified',
  data: { kycId: KYC_ID, userActivated: true, userNotActivatedReason: null, at: T1 },
};
const declined: KycEvent = { type: 'KycDeclined', data: { kycId: KYC_ID, declinedCode: 'name', at: T1 } };
const failed: KycEvent = { type: 'KycFailed', data: { kycId: KYC_ID, reason: null, at: T1 } };
const expired: KycEvent = { type: 'KycExpired', data: { kycId: KYC_ID, at: AFTER_EXPIRY } };
const revoked: KycEvent = { type: 'KycRevoked', data: { kycId: KYC_ID, reason: null, at: T1 } };

/** A hosted `full` KYC's history ending in each status. */
const HISTORY: Record<KycStatus, KycEvent[]> = {
  pending: [created(), pending()],
  completed: [created(), pending(), completed()],
  verified: [created(), pending(), completed(), verified],
  declined: [created(), pending(), completed(), declined],
  failed: [created(), pending(), failed],
  expired: [created(), pending(), expired],
  revoked: [created(), pending(), revoked],
};

const fold = (events: KycEvent[]) => events.reduce(kycDecider.evolve, kycDecider.initialState()) as KycRecord;

const submit = (submission: KycSubmission = identity, now = T1): KycCommand => ({
  type: 'SubmitKyc',
  data: { submission, now },
});
const approve = (userActivated = true): KycCommand => ({
  type: 'ApproveKyc',
  data: { userActivated, now: T1 },
});
const decline = (declinedCode?: 'name' | 'prohibitedCountry'): KycCommand => ({
  type: 'DeclineKyc',
  data: { declinedCode, now: T1 },
});
const fail: KycCommand = { type: 'FailKyc', data: { now: T1 } };
const expire = (dueOnly: boolean, now = AFTER_EXPIRY): KycCommand => ({
  type: 'ExpireKyc',
  data: { dueOnly, now },
});
const revoke: KycCommand = { type: 'RevokeKyc', data: { now: T1 } };
const resume = (now = '2026-04-01T00:00:00.000Z'): KycCommand => ({
  type: 'ResumeKyc',
  data: { referenceId: 'ref-2', now },
});

// ---------------------------------------------------------------------------------------------------
// Start
// ---------------------------------------------------------------------------------------------------

describe('kyc decider: StartKyc', () => {
  it.each(['full', 'light', 'shipping'] as const)(
    'starts a hosted %s KYC: created then pending, link for 14 days',
    (type) => {
      spec
        .given([])
        .when(start({ kycType: type }))
        .then([created(type), pending()]);
    },
  );

  it('starts an RFI with its subtype', () => {
    spec
      .given([])
      .when(start({ kycType: 'rfi', rfiSubtype: 'transaction_monitoring' }))
      .then([created('rfi'), pending()]);
  });

  it('refuses an RFI without a subtype, and a subtype on another type', () => {
    spec
      .given([])
      .when(start({ kycType: 'rfi' }))
      .thenThrows('validation_error', /rfiSubtype/);
    spec
      .given([])
      .when(start({ kycType: 'full', rfiSubtype: 'onboarding' }))
      .thenThrows('validation_error', /rfiSubtype/);
  });

  it('imports identity data when the program has the addendum: pending with no link', () => {
    spec
      .given([])
      .when(start({ kycType: 'import', submission: identity, importEnabled: true }))
      .then([created('import'), pending()]);
    expect(fold([created('import'), pending()]).expiresAt).toBeNull();
  });

  it('refuses an import without the contract addendum', () => {
    spec
      .given([])
      .when(start({ kycType: 'import', submission: identity, importEnabled: false }))
      .thenThrows('kyc_import_not_enabled', /addendum/);
  });

  it('refuses an import without data and a hosted KYC with data', () => {
    spec
      .given([])
      .when(start({ kycType: 'import', importEnabled: true }))
      .thenThrows('validation_error');
    spec
      .given([])
      .when(start({ kycType: 'full', submission: identity }))
      .thenThrows('validation_error');
  });

  it('refuses to start a KYC twice on the same id', () => {
    spec
      .given(HISTORY.pending)
      .when(start())
      .thenThrows('invalid_state_transition', /already exists/);
  });
});

// ---------------------------------------------------------------------------------------------------
// Submission
// ---------------------------------------------------------------------------------------------------

describe('kyc decider: SubmitKyc', () => {
  it('completes a pending KYC with the data the user entered', () => {
    spec.given(HISTORY.pending).when(submit()).then([completed()]);
  });

  it('takes a shipping address for a shipping KYC and an explanation for an RFI', () => {
    spec
      .given([created('shipping'), pending()])
      .when(submit(shipping))
      .then([completed(shipping)]);
    spec
      .given([created('rfi'), pending()])
      .when(submit(explanation))
      .then([completed(explanation)]);
  });

  it('refuses data of the wrong kind', () => {
    spec
      .given([created('shipping'), pending()])
      .when(submit(identity))
      .thenThrows('validation_error', /shipping/);
  });

  it('refuses a submission once the link has passed its 14 days, even before the sweep expired it', () => {
    spec
      .given(HISTORY.pending)
      .when(submit(identity, EXPIRES))
      .thenThrows('invalid_state_transition', /expired/);
  });

  it.each(['completed', 'verified', 'declined', 'failed', 'expired', 'revoked'] as const)(
    'refuses a submission on a %s KYC (the user does not re-enter the form)',
    (status) => {
      spec.given(HISTORY[status]).when(submit()).thenThrows('invalid_state_transition', new RegExp(status));
    },
  );

  it('refuses a submission on an import', () => {
    spec
      .given([created('import'), pending()])
      .when(submit())
      .thenThrows('invalid_state_transition', /imported/);
  });
});

// ---------------------------------------------------------------------------------------------------
// Review
// ---------------------------------------------------------------------------------------------------

describe('kyc decider: review (approve, decline)', () => {
  it('verifies a completed KYC with the activation outcome given by the service', () => {
    spec.given(HISTORY.completed).when(approve()).then([verified]);
    spec
      .given(HISTORY.completed)
      .when({
        type: 'ApproveKyc',
        data: { userActivated: false, userNotActivatedReason: 'previousKycDeclined', now: T1 },
      })
      .then([
        {
          type: 'KycVerified',
          data: {
            kycId: KYC_ID,
            userActivated: false,
            userNotActivatedReason: 'previousKycDeclined',
            at: T1,
          },
        },
      ]);
  });

  it('declines a completed KYC with or without a code', () => {
    spec.given(HISTORY.completed).when(decline('name')).then([declined]);
    spec
      .given(HISTORY.completed)
      .when(decline())
      .then([{ type: 'KycDeclined', data: { kycId: KYC_ID, declinedCode: null, at: T1 } }]);
  });

  it('reviews an import straight from pending', () => {
    spec
      .given([created('import'), pending()])
      .when(approve())
      .then([verified]);
    spec
      .given([created('import'), pending()])
      .when(decline('prohibitedCountry'))
      .then([{ type: 'KycDeclined', data: { kycId: KYC_ID, declinedCode: 'prohibitedCountry', at: T1 } }]);
  });

  it('refuses to review a hosted KYC the user has not submitted yet', () => {
    spec
      .given(HISTORY.pending)
      .when(approve())
      .thenThrows('invalid_state_transition', /not submitted/);
    spec
      .given(HISTORY.pending)
      .when(decline())
      .thenThrows('invalid_state_transition', /not submitted/);
  });

  it('changes nothing when the same outcome is given again (a retried review)', () => {
    spec.given(HISTORY.verified).when(approve()).thenNothing();
    spec.given(HISTORY.declined).when(decline('name')).thenNothing();
  });

  it.each(['declined', 'failed', 'expired', 'revoked'] as const)('refuses to approve a %s KYC', (status) => {
    spec.given(HISTORY[status]).when(approve()).thenThrows('invalid_state_transition', new RegExp(status));
  });

  it.each(['verified', 'failed', 'expired', 'revoked'] as const)('refuses to decline a %s KYC', (status) => {
    spec.given(HISTORY[status]).when(decline()).thenThrows('invalid_state_transition', new RegExp(status));
  });
});

// ---------------------------------------------------------------------------------------------------
// Failure, expiry, revocation
// ---------------------------------------------------------------------------------------------------

describe('kyc decider: FailKyc', () => {
  it.each(['pending', 'completed'] as const)('fails a %s KYC', (status) => {
    spec.given(HISTORY[status]).when(fail).then([failed]);
  });

  it.each(['verified', 'declined', 'expired', 'revoked'] as const)('refuses to fail a %s KYC', (status) => {
    spec.given(HISTORY[status]).when(fail).thenThrows('invalid_state_transition');
  });

  it('changes nothing on a KYC that already failed', () => {
    spec.given(HISTORY.failed).when(fail).thenNothing();
  });
});

describe('kyc decider: ExpireKyc', () => {
  it('the sweep expires a pending KYC once its link is past 14 days', () => {
    spec
      .given(HISTORY.pending)
      .when(expire(true, EXPIRES))
      .then([{ type: 'KycExpired', data: { kycId: KYC_ID, at: EXPIRES } }]);
  });

  it('the sweep leaves a KYC alone before its time, and whatever is no longer pending', () => {
    spec.given(HISTORY.pending).when(expire(true, '2026-03-15T09:59:59.999Z')).thenNothing();
    for (const status of ['completed', 'verified', 'declined', 'failed', 'expired', 'revoked'] as const) {
      spec.given(HISTORY[status]).when(expire(true)).thenNothing();
    }
    spec
      .given([created('import'), pending()])
      .when(expire(true))
      .thenNothing();
  });

  it('a simulated expiry expires a pending KYC at once', () => {
    spec
      .given(HISTORY.pending)
      .when(expire(false, T1))
      .then([{ type: 'KycExpired', data: { kycId: KYC_ID, at: T1 } }]);
  });

  it.each(['completed', 'verified', 'declined', 'failed', 'revoked'] as const)(
    'a simulated expiry is refused on a %s KYC',
    (status) => {
      spec
        .given(HISTORY[status])
        .when(expire(false))
        .thenThrows('invalid_state_transition', new RegExp(status));
    },
  );

  it('a simulated expiry is refused on an import, and changes nothing on an expired KYC', () => {
    spec
      .given([created('import'), pending()])
      .when(expire(false))
      .thenThrows('invalid_state_transition', /imported/);
    spec.given(HISTORY.expired).when(expire(false)).thenNothing();
  });
});

describe('kyc decider: RevokeKyc', () => {
  it('closes a pending KYC before completion', () => {
    spec.given(HISTORY.pending).when(revoke).then([revoked]);
  });

  it.each(['completed', 'verified', 'declined', 'failed', 'expired'] as const)(
    'refuses to revoke a %s KYC',
    (status) => {
      spec.given(HISTORY[status]).when(revoke).thenThrows('invalid_state_transition');
    },
  );

  it('changes nothing on a revoked KYC', () => {
    spec.given(HISTORY.revoked).when(revoke).thenNothing();
  });
});

// ---------------------------------------------------------------------------------------------------
// Resume
// ---------------------------------------------------------------------------------------------------

describe('kyc decider: ResumeKyc', () => {
  it('gives an expired KYC a new session and a link valid 14 days from now, pending again', () => {
    spec
      .given(HISTORY.expired)
      .when(resume())
      .then([
        {
          type: 'KycResumed',
          data: {
            kycId: KYC_ID,
            referenceId: 'ref-2',
            expiresAt: '2026-04-15T00:00:00.000Z',
            at: '2026-04-01T00:00:00.000Z',
          },
        },
      ]);
    const after = fold([...HISTORY.expired, ...kycDecider.decide(resume(), fold(HISTORY.expired))]);
    expect(after).toMatchObject({
      status: 'pending',
      referenceId: 'ref-2',
      linkIssuedAt: '2026-04-01T00:00:00.000Z',
    });
    expect(linkIsOpen(after, '2026-04-14T23:59:59.999Z')).toBe(true);
    expect(linkIsOpen(after, '2026-04-15T00:00:00.000Z')).toBe(false);
  });

  it('refuses a pending KYC: it must expire first', () => {
    spec
      .given(HISTORY.pending)
      .when(resume())
      .thenThrows('kyc_resume_not_allowed_error', /pending/);
  });

  it.each(['declined', 'failed', 'revoked'] as const)('refuses a %s KYC', (status) => {
    spec.given(HISTORY[status]).when(resume()).thenThrows('kyc_resume_not_allowed_error', new RegExp(status));
  });

  it.each(['completed', 'verified'] as const)(
    'plans a new KYC when the user already completed a %s one',
    (status) => {
      expect(resumePlan(fold(HISTORY[status]))).toBe('start_new');
      spec
        .given(HISTORY[status])
        .when(resume())
        .thenThrows('kyc_resume_not_allowed_error', /new KYC/);
    },
  );

  it('refuses an import, which has no link', () => {
    spec
      .given([created('import'), pending()])
      .when(resume())
      .thenThrows('kyc_resume_not_allowed_error', /imported/);
    expect(() => resumePlan(fold([created('import'), pending(), verified]))).toThrow(/imported/);
  });
});

// ---------------------------------------------------------------------------------------------------
// Evolve
// ---------------------------------------------------------------------------------------------------

describe('kyc decider: evolve', () => {
  it('folds a history into the KYC with its outcome', () => {
    expect(fold([...HISTORY.completed, verified])).toEqual({
      status: 'verified',
      kycId: KYC_ID,
      userId: USER_ID,
      distributorId: 'dst-1',
      type: 'full',
      rfiSubtype: null,
      provider: 'sandbox-idv',
      referenceId: 'ref-1',
      expiresAt: EXPIRES,
      linkIssuedAt: T0,
      submission: identity,
      declinedCode: null,
      userActivated: true,
      userNotActivatedReason: null,
      createdAt: T0,
      updatedAt: T1,
    });
    expect(fold(HISTORY.declined)).toMatchObject({ status: 'declined', declinedCode: 'name' });
  });
});
