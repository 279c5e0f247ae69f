import { deciderSpec } from '@cip/shared/testing';
import { DistributorCommand, distributorDecider, DistributorState, NewApiKey } from './distributor.decider';
import type { DistributorEvent } from './distributor.events';
import type { ApiKeyRecord, ProgramConfig } from './distributor.types';

// ---------------------------------------------------------------------------------------------------
// Fixtures
// ---------------------------------------------------------------------------------------------------

const spec = deciderSpec(distributorDecider);

const DISTRIBUTOR_ID = 'dst-acme';
const CREATED_AT = '2024-05-01T09:00:00.000Z';
const T1 = '2024-05-02T09:00:00.000Z';
const T2 = '2024-05-03T09:00:00.000Z';

const program: ProgramConfig = {
  allowedCountries: ['FR', 'DE'],
  b2b: false,
  prepaid: true,
  kycImportEnabled: false,
};
const b2bProgram: ProgramConfig = {
  allowedCountries: ['FR', 'DE', 'IT'],
  b2b: true,
  prepaid: false,
  kycImportEnabled: true,
};

const sandboxKey: NewApiKey = {
  keyId: 'key-sbx-1',
  environment: 'sandbox',
  keyHash: 'a'.repeat(64),
  last4: 'a1b2',
  label: 'CI',
};
const liveKey: NewApiKey = {
  keyId: 'key-live-1',
  environment: 'production',
  keyHash: 'b'.repeat(64),
  last4: 'c3d4',
  label: null,
};
const sandboxReplacement: NewApiKey = {
  keyId: 'key-sbx-2',
  environment: 'sandbox',
  keyHash: 'c'.repeat(64),
  last4: 'e5f6',
  label: 'CI (rolled)',
};

const create = (
  overrides: Partial<Extract<DistributorCommand, { type: 'CreateDistributor' }>['data']> = {},
) =>
  ({
    type: 'CreateDistributor',
    data: {
      distributorId: DISTRIBUTOR_ID,
      name: 'Acme Cards',
      program,
      isDefault: false,
      now: CREATED_AT,
      ...overrides,
    },
  }) satisfies DistributorCommand;

const created: DistributorEvent = {
  type: 'DistributorCreated',
  data: {
    distributorId: DISTRIBUTOR_ID,
    name: 'Acme Cards',
    program,
    isDefault: false,
    createdAt: CREATED_AT,
  },
};

const issue = (key: NewApiKey, now = T1): DistributorCommand => ({ type: 'IssueApiKey', data: { key, now } });
const issued = (key: NewApiKey, at = T1): DistributorEvent => ({
  type: 'ApiKeyIssued',
  data: { distributorId: DISTRIBUTOR_ID, ...key, at },
});
const roll = (keyId: string, replacement: NewApiKey, now = T2): DistributorCommand => ({
  type: 'RollApiKey',
  data: { keyId, replacement, now },
});
const remove = (keyId: string, now = T2): DistributorCommand => ({
  type: 'DeleteApiKey',
  data: { keyId, now },
});
const revoked = (keyId: string, reason: 'rolled' | 'deleted', at = T2): DistributorEvent => ({
  type: 'ApiKeyRevoked',
  data: { distributorId: DISTRIBUTOR_ID, keyId, reason, at },
});

const fold = (events: DistributorEvent[]): DistributorState =>
  events.reduce(distributorDecider.evolve, distributorDecider.initialState());

const keysOf = (state: DistributorState): ApiKeyRecord[] => (state.status === 'absent' ? [] : state.keys);
const keyOf = (state: DistributorState, keyId: string) => keysOf(state).find((k) => k.keyId === keyId);

// ---------------------------------------------------------------------------------------------------
// Distributor
// ---------------------------------------------------------------------------------------------------

describe('distributor decider: CreateDistributor', () => {
  it('creates the distributor with its program', () => {
    spec.given([]).when(create()).then([created]);
  });

  it('starts an active distributor without keys', () => {
    expect(fold([created])).toEqual({
      status: 'active',
      distributorId: DISTRIBUTOR_ID,
      name: 'Acme Cards',
      program,
      isDefault: false,
      keys: [],
      createdAt: CREATED_AT,
      updatedAt: CREATED_AT,
    });
  });

  it('does nothing when the distributor already exists, even with other details (bootstrap on every start)', () => {
    spec.given([created]).when(create()).thenNothing();
    spec
      .given([created])
      .when(create({ name: 'Renamed', program: b2bProgram, isDefault: true }))
      .thenNothing();
  });
});

describe('distributor decider: ConfigureProgram', () => {
  it('records the new program', () => {
    spec
      .given([created])
      .when({ type: 'ConfigureProgram', data: { program: b2bProgram, now: T1 } })
      .then([
        {
          type: 'DistributorProgramConfigured',
          data: { distributorId: DISTRIBUTOR_ID, program: b2bProgram, at: T1 },
        },
      ]);
  });

  it('makes the new program the one in force', () => {
    const state = fold([
      created,
      {
        type: 'DistributorProgramConfigured',
        data: { distributorId: DISTRIBUTOR_ID, program: b2bProgram, at: T1 },
      },
    ]);
    expect(state).toMatchObject({
      status: 'active',
      program: b2bProgram,
      createdAt: CREATED_AT,
      updatedAt: T1,
    });
  });

  it('refuses to configure a distributor that does not exist', () => {
    spec
      .given([])
      .when({ type: 'ConfigureProgram', data: { program, now: T1 } })
      .thenThrows('not_found');
  });
});

// ---------------------------------------------------------------------------------------------------
// API keys
// ---------------------------------------------------------------------------------------------------

describe('distributor decider: IssueApiKey', () => {
  it('issues a key in its environment', () => {
    spec
      .given([created])
      .when(issue(sandboxKey))
      .then([issued(sandboxKey)]);
    spec
      .given([created, issued(sandboxKey)])
      .when(issue(liveKey))
      .then([issued(liveKey)]);
  });

  it('adds the key as active, keeping only its hash and last four characters', () => {
    expect(keysOf(fold([created, issued(sandboxKey)]))).toEqual([
      {
        keyId: 'key-sbx-1',
        environment: 'sandbox',
        keyHash: 'a'.repeat(64),
        last4: 'a1b2',
        label: 'CI',
        status: 'active',
        createdAt: T1,
        revokedAt: null,
      },
    ]);
  });

  it('does nothing when a key with the same hash is already registered', () => {
    spec
      .given([created, issued(sandboxKey)])
      .when(issue({ ...sandboxKey, keyId: 'key-sbx-duplicate', label: 'bootstrap' }, T2))
      .thenNothing();
  });

  it('does not bring back a revoked key by issuing its hash again', () => {
    spec
      .given([created, issued(sandboxKey), revoked(sandboxKey.keyId, 'deleted')])
      .when(issue({ ...sandboxKey, keyId: 'key-sbx-again' }))
      .thenNothing();
  });

  it('refuses to issue a key for a distributor that does not exist', () => {
    spec.given([]).when(issue(sandboxKey)).thenThrows('not_found');
  });
});

describe('distributor decider: RollApiKey', () => {
  const withKeys = [created, issued(sandboxKey), issued(liveKey)];

  it('revokes the old key as rolled and issues the replacement at the same time', () => {
    spec
      .given(withKeys)
      .when(roll(sandboxKey.keyId, sandboxReplacement))
      .then([revoked(sandboxKey.keyId, 'rolled'), issued(sandboxReplacement, T2)]);
  });

  it('leaves the old key revoked, the replacement active in the same environment, and other keys alone', () => {
    const events = distributorDecider.decide(roll(sandboxKey.keyId, sandboxReplacement), fold(withKeys));
    const state = fold([...withKeys, ...events]);
    expect(keyOf(state, sandboxKey.keyId)).toMatchObject({ status: 'revoked', revokedAt: T2, createdAt: T1 });
    expect(keyOf(state, sandboxReplacement.keyId)).toMatchObject({
      status: 'active',
      environment: 'sandbox',
      keyHash: sandboxReplacement.keyHash,
      createdAt: T2,
      revokedAt: null,
    });
    expect(keyOf(state, liveKey.keyId)).toMatchObject({ status: 'active', revokedAt: null });
    expect(state).toMatchObject({ updatedAt: T2 });
  });

  it('refuses a replacement in another environment', () => {
    spec
      .given(withKeys)
      .when(roll(sandboxKey.keyId, { ...sandboxReplacement, environment: 'production' }))
      .thenThrows('validation_error', /environment/);
    spec
      .given(withKeys)
      .when(roll(liveKey.keyId, sandboxReplacement))
      .thenThrows('validation_error', /environment/);
  });

  it('refuses to roll a revoked key', () => {
    spec
      .given([...withKeys, revoked(sandboxKey.keyId, 'deleted')])
      .when(roll(sandboxKey.keyId, sandboxReplacement))
      .thenThrows('invalid_state_transition', new RegExp(sandboxKey.keyId));
  });

  it('refuses to roll the same key twice', () => {
    spec
      .given([...withKeys, revoked(sandboxKey.keyId, 'rolled'), issued(sandboxReplacement, T2)])
      .when(roll(sandboxKey.keyId, { ...sandboxReplacement, keyId: 'key-sbx-3', keyHash: 'd'.repeat(64) }))
      .thenThrows('invalid_state_transition');
  });

  it('refuses to roll an unknown key', () => {
    spec
      .given(withKeys)
      .when(roll('key-unknown', sandboxReplacement))
      .thenThrows('not_found', /key-unknown/);
  });

  it('refuses to roll a key of a distributor that does not exist', () => {
    spec.given([]).when(roll(sandboxKey.keyId, sandboxReplacement)).thenThrows('not_found');
  });
});

describe('distributor decider: DeleteApiKey', () => {
  const withKeys = [created, issued(sandboxKey), issued(liveKey)];

  it('revokes the key as deleted', () => {
    spec
      .given(withKeys)
      .when(remove(liveKey.keyId))
      .then([revoked(liveKey.keyId, 'deleted')]);
  });

  it('marks only that key revoked, with the time it was revoked', () => {
    const state = fold([...withKeys, revoked(liveKey.keyId, 'deleted', T2)]);
    expect(keyOf(state, liveKey.keyId)).toMatchObject({ status: 'revoked', revokedAt: T2 });
    expect(keyOf(state, sandboxKey.keyId)).toMatchObject({ status: 'active', revokedAt: null });
    expect(state).toMatchObject({ updatedAt: T2 });
  });

  it('refuses to delete a key that is already revoked', () => {
    spec
      .given([...withKeys, revoked(liveKey.keyId, 'deleted')])
      .when(remove(liveKey.keyId))
      .thenThrows('invalid_state_transition');
  });

  it('refuses to delete an unknown key', () => {
    spec
      .given(withKeys)
      .when(remove('key-unknown'))
      .thenThrows('not_found', /key-unknown/);
  });

  it('refuses to delete a key of a distributor that does not exist', () => {
    spec.given([]).when(remove(liveKey.keyId)).thenThrows('not_found');
  });
});
