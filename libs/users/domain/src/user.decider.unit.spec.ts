import { DomainError } from '@cip/shared/contracts';
import { deciderSpec } from '@cip/shared/testing';
import type {
  ChangeUserStatus,
  CreateUser,
  EraseUser,
  SetUserPhone,
  UpdateShippingAddress,
} from './user.commands';
import { userDecider, UserRecord, UserState } from './user.decider';
import type { TargetStatus, UserCreated, UserEvent, UserStatusChanged } from './user.events';
import { Phone, ShippingAddress, UserProgramRules, UserStatus, USER_STATUSES } from './user.types';

// ---------------------------------------------------------------------------------------------------
// Fixtures
// ---------------------------------------------------------------------------------------------------

const spec = deciderSpec(userDecider);

const USER_ID = 'usr-4b7e2c1a';
const DISTRIBUTOR_ID = 'dst-9f31';
const CREATED_AT = '2024-05-01T10:00:00.000Z';
const LATER = '2024-05-02T08:30:00.000Z';

const retail: UserProgramRules = { allowedCountries: ['FR', 'DE', 'ES'], b2b: false };
const b2b: UserProgramRules = { allowedCountries: ['FR', 'DE', 'ES'], b2b: true };

const parisAddress: ShippingAddress = {
  addressLine1: '10 rue de Rivoli',
  city: 'Paris',
  postalCode: '75001',
  country: 'FR',
};
const berlinAddress: ShippingAddress = {
  addressLine1: 'Unter den Linden 5',
  addressLine2: '3. OG',
  city: 'Berlin',
  postalCode: '10117',
  country: 'DE',
};

const frenchMobile: Phone = { country: '+33', number: '612345678' };
const germanMobile: Phone = { country: '+49', number: '15112345678' };

const createUser = (overrides: Partial<CreateUser['data']> = {}): CreateUser => ({
  type: 'CreateUser',
  data: {
    userId: USER_ID,
    distributorId: DISTRIBUTOR_ID,
    email: 'ada@example.com',
    firstName: 'Ada',
    lastName: 'Lovelace',
    countryOfResidence: 'FR',
    program: retail,
    now: CREATED_AT,
    ...overrides,
  },
});

const created = (overrides: Partial<UserCreated['data']> = {}): UserCreated => ({
  type: 'UserCreated',
  data: {
    userId: USER_ID,
    distributorId: DISTRIBUTOR_ID,
    email: 'ada@example.com',
    firstName: 'Ada',
    lastName: 'Lovelace',
    countryOfResidence: 'FR',
    shippingAddress: null,
    createdAt: CREATED_AT,
    ...overrides,
  },
});

const setPhone = (phone: Phone, now = LATER): SetUserPhone => ({
  type: 'SetUserPhone',
  data: { phone, now },
});

const phoneSet = (phone: Phone, previousPhone: Phone | null, at = LATER): UserEvent => ({
  type: 'UserPhoneNumberSet',
  data: { userId: USER_ID, phone, previousPhone, at },
});

const updateAddress = (
  source: 'api' | 'kyc',
  program: UserProgramRules,
  shippingAddress: ShippingAddress = berlinAddress,
): UpdateShippingAddress => ({
  type: 'UpdateShippingAddress',
  data: { shippingAddress, source, program, now: LATER },
});

const changeStatus = (to: TargetStatus, reason?: string, now = LATER): ChangeUserStatus => ({
  type: 'ChangeUserStatus',
  data: { to, reason, now },
});

/** A status change a saga makes on behalf of a cause (here a KYC outcome). */
const changeStatusFor = (
  cause: string,
  to: TargetStatus,
  reason?: string,
  now = LATER,
): ChangeUserStatus => ({
  type: 'ChangeUserStatus',
  data: { to, reason, cause, now },
});

const EVENT_OF_TARGET = {
  active: 'UserActivated',
  unverified: 'UserUnverified',
  frozen: 'UserFrozen',
  disabled: 'UserDisabled',
  revoked: 'UserRevoked',
  deleted: 'UserDeleted',
} as const;

const statusChanged = (
  to: TargetStatus,
  previousStatus: UserStatus,
  reason: string | null = null,
  at = LATER,
): UserStatusChanged => ({
  type: EVENT_OF_TARGET[to],
  data: { userId: USER_ID, previousStatus, reason, at },
});

/**
 * A history that leaves the user in each status reachable through events. `unverified` has no event that
 * leads to it (see `stateIn`).
 */
const HISTORY: Record<Exclude<UserStatus, 'unverified'>, UserEvent[]> = {
  onboarding: [created()],
  active: [created(), statusChanged('active', 'onboarding')],
  frozen: [created(), statusChanged('active', 'onboarding'), statusChanged('frozen', 'active')],
  disabled: [created(), statusChanged('disabled', 'onboarding')],
  revoked: [created(), statusChanged('revoked', 'onboarding')],
  deleted: [created(), statusChanged('deleted', 'onboarding')],
};

const fold = (events: UserEvent[]): UserState =>
  events.reduce(userDecider.evolve, userDecider.initialState());

/** The state of a user in `status`. No domain event produces `unverified`, so that one is built by hand. */
function stateIn(status: UserStatus): UserState {
  if (status === 'unverified') return { ...(fold(HISTORY.onboarding) as UserRecord), status: 'unverified' };
  return fold(HISTORY[status]);
}

function errorOf(run: () => unknown): DomainError {
  try {
    run();
  } catch (error) {
    if (error instanceof DomainError) return error;
    throw error;
  }
  throw new Error('expected a DomainError, nothing was thrown');
}

/** The allowed sources of each status command, as the platform's user lifecycle defines them. */
const ALLOWED: Record<TargetStatus, readonly UserStatus[]> = {
  active: ['onboarding', 'unverified', 'frozen', 'disabled'],
  unverified: ['onboarding', 'active', 'frozen', 'disabled'],
  frozen: ['onboarding', 'unverified', 'active'],
  disabled: ['onboarding', 'unverified', 'active', 'frozen'],
  revoked: ['onboarding', 'unverified', 'active', 'frozen', 'disabled'],
  deleted: ['onboarding', 'unverified', 'active', 'frozen', 'disabled'],
};
const TARGETS = Object.keys(ALLOWED) as TargetStatus[];

const matrix = USER_STATUSES.flatMap((from) => TARGETS.map((to) => ({ from, to })));

// ---------------------------------------------------------------------------------------------------
// Creation
// ---------------------------------------------------------------------------------------------------

describe('user decider: CreateUser', () => {
  it('records the user with normalised email, trimmed names and an upper-case country', () => {
    spec
      .given([])
      .when(
        createUser({
          email: '  Ada.Lovelace@Example.COM ',
          firstName: '  Ada ',
          lastName: ' Lovelace  ',
          countryOfResidence: 'fr',
        }),
      )
      .then([
        created({
          email: 'ada.lovelace@example.com',
          firstName: 'Ada',
          lastName: 'Lovelace',
          countryOfResidence: 'FR',
        }),
      ]);
  });

  it('starts the user in onboarding, without a phone, updated when created', () => {
    const [event] = userDecider.decide(createUser(), userDecider.initialState());
    expect(fold([event])).toEqual({
      status: 'onboarding',
      userId: USER_ID,
      distributorId: DISTRIBUTOR_ID,
      email: 'ada@example.com',
      firstName: 'Ada',
      lastName: 'Lovelace',
      countryOfResidence: 'FR',
      phone: null,
      shippingAddress: null,
      erasedAt: null,
      appliedCauses: [],
      createdAt: CREATED_AT,
      updatedAt: CREATED_AT,
    });
  });

  it('refuses a country outside the program allow-list, pointing at countryOfResidence', () => {
    spec
      .given([])
      .when(createUser({ countryOfResidence: 'us' }))
      .thenThrows('country_not_allowed', /US/);

    const error = errorOf(() =>
      userDecider.decide(createUser({ countryOfResidence: 'us' }), userDecider.initialState()),
    );
    expect(error.status).toBe(422);
    expect(error.details).toEqual([{ field: 'countryOfResidence', message: expect.stringContaining('US') }]);
  });

  it('follows the allow-list of the program given with the command', () => {
    spec
      .given([])
      .when(createUser({ countryOfResidence: 'IT', program: { allowedCountries: ['IT'], b2b: false } }))
      .then([created({ countryOfResidence: 'IT' })]);
    spec
      .given([])
      .when(createUser({ countryOfResidence: 'FR', program: { allowedCountries: ['IT'], b2b: false } }))
      .thenThrows('country_not_allowed');
  });

  it('forbids shipping details on creation for a non-B2B distributor', () => {
    spec
      .given([])
      .when(createUser({ shippingAddress: parisAddress, program: retail }))
      .thenThrows('forbidden', /B2B/);
  });

  it('keeps the shipping details sent on creation by a B2B distributor', () => {
    spec
      .given([])
      .when(createUser({ shippingAddress: parisAddress, program: b2b }))
      .then([created({ shippingAddress: parisAddress })]);

    const [event] = userDecider.decide(
      createUser({ shippingAddress: parisAddress, program: b2b }),
      userDecider.initialState(),
    );
    expect(fold([event])).toMatchObject({ status: 'onboarding', shippingAddress: parisAddress });
  });

  it('checks the country before the shipping details, so the distributor learns the blocking reason', () => {
    spec
      .given([])
      .when(createUser({ countryOfResidence: 'US', shippingAddress: parisAddress, program: retail }))
      .thenThrows('country_not_allowed');
  });

  it('refuses to create a user that already exists', () => {
    spec.given([created()]).when(createUser()).thenThrows('invalid_state_transition', new RegExp(USER_ID));
  });
});

// ---------------------------------------------------------------------------------------------------
// Phone
// ---------------------------------------------------------------------------------------------------

describe('user decider: SetUserPhone', () => {
  it('sets the first phone with no previous phone', () => {
    spec
      .given([created()])
      .when(setPhone(frenchMobile))
      .then([phoneSet(frenchMobile, null)]);
  });

  it('reports the previous phone when the phone changes', () => {
    spec
      .given([created(), phoneSet(frenchMobile, null)])
      .when(setPhone(germanMobile))
      .then([phoneSet(germanMobile, frenchMobile)]);
  });

  it('treats the same number under another country prefix as a change', () => {
    const sameDigitsOtherPrefix: Phone = { country: '+32', number: frenchMobile.number };
    spec
      .given([created(), phoneSet(frenchMobile, null)])
      .when(setPhone(sameDigitsOtherPrefix))
      .then([phoneSet(sameDigitsOtherPrefix, frenchMobile)]);
  });

  it('does nothing when the user already has that phone', () => {
    spec
      .given([created(), phoneSet(frenchMobile, null)])
      .when(setPhone({ ...frenchMobile }))
      .thenNothing();
  });

  it.each(['active', 'frozen', 'disabled'] as const)('accepts a phone change on a %s user', (status) => {
    spec
      .given(HISTORY[status])
      .when(setPhone(frenchMobile))
      .then([phoneSet(frenchMobile, null)]);
  });
});

// ---------------------------------------------------------------------------------------------------
// Shipping address
// ---------------------------------------------------------------------------------------------------

describe('user decider: UpdateShippingAddress', () => {
  it('forbids an address change through the API for a non-B2B distributor', () => {
    spec.given([created()]).when(updateAddress('api', retail)).thenThrows('forbidden', /B2B/);
  });

  it('accepts an address change through the API from a B2B distributor', () => {
    spec
      .given([created({ shippingAddress: parisAddress })])
      .when(updateAddress('api', b2b))
      .then([
        {
          type: 'UserShippingAddressUpdated',
          data: { userId: USER_ID, shippingAddress: berlinAddress, source: 'api', at: LATER },
        },
      ]);
  });

  it('accepts an address captured by a shipping KYC for a non-B2B distributor', () => {
    spec
      .given([created()])
      .when(updateAddress('kyc', retail))
      .then([
        {
          type: 'UserShippingAddressUpdated',
          data: { userId: USER_ID, shippingAddress: berlinAddress, source: 'kyc', at: LATER },
        },
      ]);
  });
});

// ---------------------------------------------------------------------------------------------------
// Status transitions
// ---------------------------------------------------------------------------------------------------

describe('user decider: ChangeUserStatus', () => {
  const allowed = matrix.filter(({ from, to }) => from !== to && ALLOWED[to].includes(from));
  const refused = matrix.filter(({ from, to }) => from !== to && !ALLOWED[to].includes(from));
  const same = matrix.filter(({ from, to }) => from === to);

  it.each(allowed)('a $from user can become $to, with previous status and reason', ({ from, to }) => {
    const events = userDecider.decide(changeStatus(to, 'operator request #42'), stateIn(from));
    expect(events).toEqual([statusChanged(to, from, 'operator request #42')]);
  });

  it.each(allowed)('a $from user made $to is then $to', ({ from, to }) => {
    const events = userDecider.decide(changeStatus(to), stateIn(from));
    expect(events.reduce(userDecider.evolve, stateIn(from))).toMatchObject({ status: to, updatedAt: LATER });
  });

  it.each(refused)('a $from user cannot become $to', ({ from, to }) => {
    const error = errorOf(() => userDecider.decide(changeStatus(to), stateIn(from)));
    expect(error.code).toBe('invalid_state_transition');
    expect(error.message).toContain(from);
    expect(error.message).toContain(to);
  });

  it.each(same)('asking a $from user to become $to again changes nothing', ({ from, to }) => {
    expect(userDecider.decide(changeStatus(to, 'retry'), stateIn(from))).toEqual([]);
  });

  it('records a missing reason as null', () => {
    spec
      .given(HISTORY.active)
      .when(changeStatus('frozen'))
      .then([statusChanged('frozen', 'active', null)]);
  });

  it('reactivates a frozen user, keeping the reason given', () => {
    spec
      .given(HISTORY.frozen)
      .when(changeStatus('active', 'fraud check cleared'))
      .then([statusChanged('active', 'frozen', 'fraud check cleared')]);
  });

  it('makes the change from the status the requester expected', () => {
    spec
      .given(HISTORY.frozen)
      .when({ type: 'ChangeUserStatus', data: { to: 'active', expectedFrom: 'frozen', now: LATER } })
      .then([statusChanged('active', 'frozen', null)]);
  });

  it('refuses a change decided on a status the user no longer has (a concurrent change)', () => {
    // Support saw the user frozen and may unfreeze; compliance disabled the user meanwhile: support's
    // "active" must not bring a disabled user back (that needs compliance).
    const error = errorOf(() =>
      userDecider.decide(
        { type: 'ChangeUserStatus', data: { to: 'active', expectedFrom: 'frozen', now: LATER } },
        stateIn('disabled'),
      ),
    );
    expect(error.code).toBe('invalid_state_transition');
    expect(error.message).toBe('The user is disabled now, not frozen: it changed since it was read');
  });
});

// ---------------------------------------------------------------------------------------------------
// Status changes keyed by their cause (saga redeliveries)
// ---------------------------------------------------------------------------------------------------

describe('user decider: ChangeUserStatus with a cause', () => {
  const CAUSE = 'kyc:kyc-1:declined';
  const frozenFor = (
    cause: string,
    previousStatus: UserStatus = 'active',
    at = LATER,
  ): UserStatusChanged => ({
    type: 'UserFrozen',
    data: { userId: USER_ID, previousStatus, reason: 'RFI declined', cause, at },
  });

  it('records the cause on the status event', () => {
    spec
      .given(HISTORY.active)
      .when(changeStatusFor(CAUSE, 'frozen', 'RFI declined'))
      .then([frozenFor(CAUSE)]);
  });

  it('does not apply a cause twice, even once support has changed the status back', () => {
    const unfrozen = statusChanged('active', 'frozen', 'support cleared the RFI', '2024-06-01T10:00:00.000Z');
    spec
      .given([...HISTORY.active, frozenFor(CAUSE), unfrozen])
      .when(changeStatusFor(CAUSE, 'frozen', 'RFI declined'))
      .then([]);
  });

  it('applies a cause it has not seen, even for a status the user has had before', () => {
    const unfrozen = statusChanged('active', 'frozen', 'support cleared the RFI', '2024-06-01T10:00:00.000Z');
    spec
      .given([...HISTORY.active, frozenFor(CAUSE), unfrozen])
      .when(changeStatusFor('kyc:kyc-2:expired', 'frozen', 'RFI declined'))
      .then([frozenFor('kyc:kyc-2:expired')]);
  });

  it('ignores an applied cause for a status the user can no longer take, instead of refusing it', () => {
    const revoked = statusChanged('revoked', 'frozen', null, '2024-06-01T10:00:00.000Z');
    spec
      .given([...HISTORY.active, frozenFor(CAUSE), revoked])
      .when(changeStatusFor(CAUSE, 'frozen', 'RFI declined'))
      .then([]);
  });

  it('keeps every applied cause in the state, and none for changes without one', () => {
    const state = fold([
      ...HISTORY.active,
      frozenFor(CAUSE),
      statusChanged('active', 'frozen'),
      frozenFor('kyc:kyc-2:expired'),
    ]);
    expect(state).toMatchObject({ status: 'frozen', appliedCauses: [CAUSE, 'kyc:kyc-2:expired'] });
  });
});

// ---------------------------------------------------------------------------------------------------
// Terminal statuses
// ---------------------------------------------------------------------------------------------------

describe('user decider: revoked and deleted are terminal', () => {
  const terminal = ['revoked', 'deleted'] as const;

  it.each(terminal)('no status command moves a %s user elsewhere', (status) => {
    for (const to of TARGETS.filter((target) => target !== status)) {
      spec.given(HISTORY[status]).when(changeStatus(to)).thenThrows('invalid_state_transition');
    }
  });

  it.each(terminal)('a %s user cannot have a phone set', (status) => {
    spec
      .given(HISTORY[status])
      .when(setPhone(frenchMobile))
      .thenThrows('invalid_state_transition', new RegExp(status));
  });

  it.each(terminal)(
    'a %s user cannot have its address changed, even by KYC or a B2B distributor',
    (status) => {
      spec
        .given(HISTORY[status])
        .when(updateAddress('kyc', b2b))
        .thenThrows('invalid_state_transition', new RegExp(status));
      spec
        .given(HISTORY[status])
        .when(updateAddress('api', b2b))
        .thenThrows('invalid_state_transition', new RegExp(status));
    },
  );
});

// ---------------------------------------------------------------------------------------------------
// Erasure
// ---------------------------------------------------------------------------------------------------

describe('user decider: EraseUser', () => {
  const erase: EraseUser = {
    type: 'EraseUser',
    data: { erasedBy: 'operator:lee', reason: 'GDPR-42', now: LATER },
  };
  const erased: UserEvent = {
    type: 'UserErased',
    data: { userId: USER_ID, erasedBy: 'operator:lee', reason: 'GDPR-42', at: LATER },
  };

  it.each(['revoked', 'deleted'] as const)(
    'erases a %s user, saying who and why, nothing personal',
    (status) => {
      spec.given(HISTORY[status]).when(erase).then([erased]);
    },
  );

  it.each(['onboarding', 'active', 'frozen', 'disabled'] as const)('refuses to erase a %s user', (status) => {
    spec
      .given(HISTORY[status])
      .when(erase)
      .thenThrows('invalid_state_transition', /revoked or deleted/);
  });

  it('erases once: a second erasure changes nothing', () => {
    spec
      .given([...HISTORY.deleted, erased])
      .when(erase)
      .thenNothing();
  });

  it('leaves a pseudonymous record: id, status, country and dates, no personal field', () => {
    const history = [created(), phoneSet(frenchMobile, null), ...HISTORY.deleted.slice(1), erased];
    expect(fold(history)).toMatchObject({
      userId: USER_ID,
      status: 'deleted',
      countryOfResidence: 'FR',
      email: null,
      firstName: null,
      lastName: null,
      phone: null,
      shippingAddress: null,
      erasedAt: LATER,
      createdAt: CREATED_AT,
    });
  });

  it('refuses personal data for an erased user', () => {
    spec
      .given([...HISTORY.deleted, erased])
      .when(setPhone(frenchMobile))
      .thenThrows('invalid_state_transition');
  });
});

// ---------------------------------------------------------------------------------------------------
// Absent user
// ---------------------------------------------------------------------------------------------------

describe('user decider: commands on a user that does not exist', () => {
  it.each([
    ['SetUserPhone', setPhone(frenchMobile)],
    ['UpdateShippingAddress from KYC', updateAddress('kyc', retail)],
    ['UpdateShippingAddress from a B2B API call', updateAddress('api', b2b)],
    ...TARGETS.map((to) => [`ChangeUserStatus to ${to}`, changeStatus(to)] as const),
  ] as const)('%s → not_found', (_name, command) => {
    spec.given([]).when(command).thenThrows('not_found');
  });
});

// ---------------------------------------------------------------------------------------------------
// Evolve
// ---------------------------------------------------------------------------------------------------

describe('user decider: evolve', () => {
  it('folds a whole history into the current user', () => {
    const states: UserState[] = [];
    const history: UserEvent[] = [
      created(),
      phoneSet(frenchMobile, null, '2024-05-01T11:00:00.000Z'),
      {
        type: 'UserShippingAddressUpdated',
        data: {
          userId: USER_ID,
          shippingAddress: berlinAddress,
          source: 'kyc',
          at: '2024-05-01T12:00:00.000Z',
        },
      },
      statusChanged('active', 'onboarding', null, '2024-05-02T09:00:00.000Z'),
      statusChanged('frozen', 'active', 'lost card', '2024-05-03T09:00:00.000Z'),
      statusChanged('active', 'frozen', null, '2024-05-04T09:00:00.000Z'),
      statusChanged('disabled', 'active', null, '2024-05-05T09:00:00.000Z'),
      statusChanged('deleted', 'disabled', 'GDPR erasure', '2024-05-06T09:00:00.000Z'),
    ];
    history.reduce((state, event) => {
      const next = userDecider.evolve(state, event);
      states.push(next);
      return next;
    }, userDecider.initialState());

    expect(states.map((s) => (s.status === 'absent' ? s.status : [s.status, s.updatedAt]))).toEqual([
      ['onboarding', CREATED_AT],
      ['onboarding', '2024-05-01T11:00:00.000Z'],
      ['onboarding', '2024-05-01T12:00:00.000Z'],
      ['active', '2024-05-02T09:00:00.000Z'],
      ['frozen', '2024-05-03T09:00:00.000Z'],
      ['active', '2024-05-04T09:00:00.000Z'],
      ['disabled', '2024-05-05T09:00:00.000Z'],
      ['deleted', '2024-05-06T09:00:00.000Z'],
    ]);
    expect(states.at(-1)).toEqual({
      status: 'deleted',
      userId: USER_ID,
      distributorId: DISTRIBUTOR_ID,
      email: 'ada@example.com',
      firstName: 'Ada',
      lastName: 'Lovelace',
      countryOfResidence: 'FR',
      phone: frenchMobile,
      shippingAddress: berlinAddress,
      erasedAt: null,
      appliedCauses: [],
      createdAt: CREATED_AT,
      updatedAt: '2024-05-06T09:00:00.000Z',
    });
  });
});
