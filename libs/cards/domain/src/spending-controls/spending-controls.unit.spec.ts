import { DomainError } from '@cip/shared/contracts';
import { MAX_MINOR_UNITS } from '@cip/wallets/contract';
import {
  isMcc,
  MAX_MCCS_PER_LIST,
  MCC_GROUP_NAMES,
  MCC_GROUPS,
  parseSpendingControls,
  PROGRAM_DEFAULT_SPENDING_CONTROLS,
  RESTRICTED_MCC_GROUPS,
  type SpendingControlsUpdate,
} from './index';

/** The error a refused update throws, for assertions on its code and field details. */
function refusal(update: unknown): DomainError {
  try {
    parseSpendingControls(update as SpendingControlsUpdate);
  } catch (error) {
    if (error instanceof DomainError) return error;
    throw error;
  }
  throw new Error(`expected ${JSON.stringify(update)} to be refused`);
}
const fieldsOf = (update: unknown) => refusal(update).details?.map(({ field }) => field);

describe('parseSpendingControls: what an update sets', () => {
  it('keeps the program defaults when nothing is sent: the restricted groups blocked, no limits', () => {
    expect(parseSpendingControls({})).toEqual({
      limits: [],
      blockedMccGroups: ['quasi_cash', 'money_transfer', 'gambling', 'weapons', 'crypto'],
      blockedMccs: [],
      allowedMccs: [],
    });
    expect(PROGRAM_DEFAULT_SPENDING_CONTROLS.blockedMccGroups).toEqual(RESTRICTED_MCC_GROUPS);
  });

  it('sets every limit, list and group sent, and lifts all group blocks with an empty list', () => {
    const update = {
      limits: [
        { amount: 1, interval: 'per_authorization' },
        { amount: 50_000_000, interval: 'daily' },
        { amount: 100_000_000, interval: 'weekly' },
        { amount: 200_000_000, interval: 'monthly' },
        { amount: 300_000_000, interval: 'yearly' },
        { amount: MAX_MINOR_UNITS, interval: 'all_time' },
      ],
      blockedMccGroups: [],
      blockedMccs: ['5813', '5921'],
    };
    expect(parseSpendingControls(update)).toEqual({ ...update, allowedMccs: [] });
    expect(parseSpendingControls({ blockedMccGroups: ['gambling'], allowedMccs: ['5411'] })).toEqual({
      limits: [],
      blockedMccGroups: ['gambling'],
      blockedMccs: [],
      allowedMccs: ['5411'],
    });
  });

  it('takes a program whose defaults differ', () => {
    const program = { ...PROGRAM_DEFAULT_SPENDING_CONTROLS, blockedMccGroups: ['gambling' as const] };
    expect(parseSpendingControls({}, program).blockedMccGroups).toEqual(['gambling']);
  });
});

describe('parseSpendingControls: refusals name the field', () => {
  it.each([
    ['zero', 0],
    ['negative', -5],
    ['a fraction of a minor unit', 1.5],
    ['a string', '100'],
    ['NaN', NaN],
    ['missing', undefined],
  ])('refuses a limit amount that is %s', (_, amount) => {
    const error = refusal({ limits: [{ amount, interval: 'daily' }] });
    expect(error.code).toBe('validation_error');
    expect(error.details).toEqual([
      { field: 'limits.0.amount', message: 'must be a positive integer of minor units' },
    ]);
  });

  it('refuses a limit beyond the platform bound as amount_too_large (422) naming the field', () => {
    for (const amount of [MAX_MINOR_UNITS + 1, 2 ** 53, Infinity]) {
      const error = refusal({
        limits: [
          { amount: 1, interval: 'daily' },
          { amount, interval: 'weekly' },
        ],
      });
      expect(error.code).toBe('amount_too_large');
      expect(error.status).toBe(422);
      expect(error.details?.map(({ field }) => field)).toEqual(['limits.1.amount']);
    }
  });

  it('refuses an unknown interval, listing the valid ones', () => {
    expect(refusal({ limits: [{ amount: 1, interval: 'hourly' }] }).details).toEqual([
      {
        field: 'limits.0.interval',
        message: 'must be one of per_authorization, daily, weekly, monthly, yearly, all_time',
      },
    ]);
  });

  it('refuses two limits on one interval', () => {
    const error = refusal({
      limits: [
        { amount: 5, interval: 'daily' },
        { amount: 7, interval: 'daily' },
      ],
    });
    expect(error.details).toEqual([
      { field: 'limits.1.interval', message: 'daily already has a limit: one limit per interval' },
    ]);
  });

  it('accepts a window limit below the per-authorization limit: the tightest applies', () => {
    expect(
      parseSpendingControls({
        limits: [
          { amount: 500, interval: 'per_authorization' },
          { amount: 100, interval: 'daily' },
        ],
      }).limits,
    ).toHaveLength(2);
  });

  it('refuses unknown group names, listing the known ones', () => {
    const error = refusal({ blockedMccGroups: ['gambling', 'adult', 42] });
    expect(error.details).toEqual([
      { field: 'blockedMccGroups.1', message: `"adult" must be one of ${MCC_GROUP_NAMES.join(', ')}` },
      { field: 'blockedMccGroups.2', message: `42 must be one of ${MCC_GROUP_NAMES.join(', ')}` },
    ]);
  });

  it.each([['541'], ['54111'], ['54a1'], [' 5411'], ['0500'], ['1234'], ['9100'], [5411], [null]])(
    'refuses %p as an MCC',
    (mcc) => {
      expect(fieldsOf({ blockedMccs: ['5411', mcc] })).toEqual(['blockedMccs.1']);
      expect(fieldsOf({ allowedMccs: [mcc] })).toEqual(['allowedMccs.0']);
    },
  );

  it('refuses an MCC listed twice', () => {
    expect(refusal({ blockedMccs: ['5813', '5813'] }).details).toEqual([
      { field: 'blockedMccs.1', message: '5813 is listed twice' },
    ]);
  });

  it('refuses blocked and allowed MCCs together', () => {
    expect(refusal({ blockedMccs: ['5813'], allowedMccs: ['5411'] }).details).toEqual([
      { field: 'allowedMccs', message: 'cannot be set together with blockedMccs: set one list, not both' },
    ]);
  });

  it('refuses an allowed MCC that a blocked group declines anyway', () => {
    expect(refusal({ allowedMccs: ['5411', '7995'] }).details).toEqual([
      { field: 'allowedMccs.1', message: '7995 is in the blocked group gambling' },
    ]);
    expect(
      parseSpendingControls({ allowedMccs: ['7995'], blockedMccGroups: ['weapons'] }).allowedMccs,
    ).toEqual(['7995']);
  });

  it('refuses lists that are not arrays or are too long', () => {
    expect(fieldsOf({ limits: { amount: 1, interval: 'daily' } })).toEqual(['limits']);
    expect(fieldsOf({ limits: [null, 'daily'] })).toEqual(['limits.0', 'limits.1']);
    expect(fieldsOf({ blockedMccGroups: 'gambling' })).toEqual(['blockedMccGroups']);
    expect(fieldsOf({ blockedMccs: Array.from({ length: MAX_MCCS_PER_LIST + 1 }, () => '5411') })).toEqual([
      'blockedMccs',
    ]);
    expect(refusal(null).code).toBe('validation_error');
    expect(refusal([]).code).toBe('validation_error');
  });

  it('lists every failing field at once, with the first in the message', () => {
    const error = refusal({
      limits: [{ amount: -1, interval: 'daily' }],
      blockedMccGroups: ['nope'],
      blockedMccs: ['12'],
    });
    expect(error.details?.map(({ field }) => field)).toEqual([
      'limits.0.amount',
      'blockedMccGroups.0',
      'blockedMccs.0',
    ]);
    expect(error.message).toBe(
      'Invalid spending controls: limits.0.amount must be a positive integer of minor units',
    );
    expect(error.status).toBe(400);
  });
});

describe('the MCC group table', () => {
  it('holds only well-formed codes, each once per group, with a description and a source', () => {
    for (const group of MCC_GROUP_NAMES) {
      const codes = MCC_GROUPS[group].map(({ mcc }) => mcc);
      expect(new Set(codes).size).toBe(codes.length);
      for (const { mcc, description, source } of MCC_GROUPS[group]) {
        expect(isMcc(mcc)).toBe(true);
        expect(description.length).toBeGreaterThan(0);
        expect(source.length).toBeGreaterThan(0);
      }
    }
  });

  it('shares only 6051 between groups, as documented', () => {
    const groupsOf = new Map<string, string[]>();
    for (const group of MCC_GROUP_NAMES) {
      for (const { mcc } of MCC_GROUPS[group]) groupsOf.set(mcc, [...(groupsOf.get(mcc) ?? []), group]);
    }
    const shared = [...groupsOf].filter(([, groups]) => groups.length > 1);
    expect(shared).toEqual([['6051', ['quasi_cash', 'crypto']]]);
  });
});
