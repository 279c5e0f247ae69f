import { DomainError } from '@cip/shared/contracts';
import { deciderSpec } from '@cip/shared/testing';
import {
  ReleaseUniqueValue,
  ReserveUniqueValue,
  UniqueValueEvent,
  UniqueValueKind,
  uniqueValueDecider,
} from './unique-value.decider';

const spec = deciderSpec(uniqueValueDecider);

const ALICE = 'usr-alice-0001';
const BOB = 'usr-bob-0002';
const T0 = '2024-05-01T10:00:00.000Z';
const T1 = '2024-05-01T10:05:00.000Z';
const T2 = '2024-05-01T10:10:00.000Z';

const reserve = (
  ownerId: string,
  { kind = 'email', now = T1, currentOwnerAbandoned = false }: Partial<ReserveUniqueValue['data']> = {},
): ReserveUniqueValue => ({
  type: 'ReserveUniqueValue',
  data: { kind, ownerId, now, currentOwnerAbandoned },
});

const release = (ownerId: string, kind: UniqueValueKind = 'email', now = T1): ReleaseUniqueValue => ({
  type: 'ReleaseUniqueValue',
  data: { kind, ownerId, now },
});

const reserved = (ownerId: string, kind: UniqueValueKind = 'email', at = T0): UniqueValueEvent => ({
  type: 'UniqueValueReserved',
  data: { kind, ownerId, at },
});

const released = (ownerId: string, kind: UniqueValueKind = 'email', at = T1): UniqueValueEvent => ({
  type: 'UniqueValueReleased',
  data: { kind, ownerId, at },
});

function errorOf(run: () => unknown): DomainError {
  try {
    run();
  } catch (error) {
    if (error instanceof DomainError) return error;
    throw error;
  }
  throw new Error('expected a DomainError, nothing was thrown');
}

const fold = (events: UniqueValueEvent[]) =>
  events.reduce(uniqueValueDecider.evolve, uniqueValueDecider.initialState());

describe('unique value decider: reserve', () => {
  it.each(['email', 'phone'] as const)('reserves a free %s for its first owner', (kind) => {
    spec
      .given([])
      .when(reserve(ALICE, { kind }))
      .then([reserved(ALICE, kind, T1)]);
  });

  it('refuses a value held by another user, naming that user so the client can GET it', () => {
    spec
      .given([reserved(ALICE)])
      .when(reserve(BOB))
      .thenThrows('duplicate_user_error', new RegExp(`email address already exists: ${ALICE}`));

    const error = errorOf(() => uniqueValueDecider.decide(reserve(BOB), fold([reserved(ALICE)])));
    expect(error.status).toBe(409);
    expect(error.message).not.toContain(BOB);
    expect(error.details).toEqual([{ field: 'email', message: `already used by ${ALICE}` }]);
  });

  it('says which kind of value is taken for a phone number', () => {
    const error = errorOf(() =>
      uniqueValueDecider.decide(reserve(BOB, { kind: 'phone' }), fold([reserved(ALICE, 'phone')])),
    );
    expect(error.code).toBe('duplicate_user_error');
    expect(error.message).toMatch(new RegExp(`phone number already exists: ${ALICE}`));
    expect(error.details).toEqual([{ field: 'phone', message: `already used by ${ALICE}` }]);
  });

  it('does nothing when the owner reserves its own value again (a retried creation)', () => {
    spec
      .given([reserved(ALICE)])
      .when(reserve(ALICE))
      .thenNothing();
    spec
      .given([reserved(ALICE)])
      .when(reserve(ALICE, { currentOwnerAbandoned: true }))
      .thenNothing();
  });

  it('lets a new user take over a value whose owner was abandoned', () => {
    spec
      .given([reserved(ALICE)])
      .when(reserve(BOB, { currentOwnerAbandoned: true, now: T2 }))
      .then([reserved(BOB, 'email', T2)]);
  });

  it('after a takeover the value belongs to the new owner, and the old one is refused', () => {
    const takeover = uniqueValueDecider.decide(
      reserve(BOB, { currentOwnerAbandoned: true, now: T2 }),
      fold([reserved(ALICE)]),
    );
    const history = [reserved(ALICE), ...takeover];
    expect(fold(history)).toEqual({ ownerId: BOB, reservedAt: T2 });
    spec.given(history).when(reserve(ALICE)).thenThrows('duplicate_user_error', new RegExp(BOB));
  });
});

describe('unique value decider: release', () => {
  it('frees the value when its owner releases it', () => {
    spec
      .given([reserved(ALICE)])
      .when(release(ALICE))
      .then([released(ALICE)]);
    expect(fold([reserved(ALICE), released(ALICE)])).toEqual({ ownerId: null, reservedAt: null });
  });

  it('ignores a release by someone who does not hold the value', () => {
    spec
      .given([reserved(ALICE)])
      .when(release(BOB))
      .thenNothing();
  });

  it('ignores a release of a value nobody holds', () => {
    spec.given([]).when(release(ALICE)).thenNothing();
    spec
      .given([reserved(ALICE), released(ALICE)])
      .when(release(ALICE))
      .thenNothing();
  });

  it('lets another user reserve the value once it is released', () => {
    spec
      .given([reserved(ALICE), released(ALICE)])
      .when(reserve(BOB, { now: T2 }))
      .then([reserved(BOB, 'email', T2)]);
  });
});
