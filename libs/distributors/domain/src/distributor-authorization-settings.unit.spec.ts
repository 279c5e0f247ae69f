import { DEFAULT_PROGRAM_AUTHORIZATION, programAuthorization } from '@cip/authorizations/contract';
import type { ProgramAuthorization } from '@cip/shared/contracts';
import { deciderSpec } from '@cip/shared/testing';
import { DistributorCommand, distributorDecider, DistributorState } from './distributor.decider';
import { distributorEvents, type DistributorEvent } from './distributor.events';
import type { ProgramConfig } from './distributor.types';

// The program's card authorization settings (issue 12): recorded with the program when valid, refused with
// every problem named otherwise; a program recorded before they existed has the defaults.

const spec = deciderSpec(distributorDecider);
const DISTRIBUTOR_ID = 'dst-acme';
const T0 = '2026-11-01T09:00:00.000Z';
const T1 = '2026-11-02T09:00:00.000Z';

/** A program as events recorded it before authorization settings existed. */
const legacyProgram: ProgramConfig = {
  allowedCountries: ['FR', 'DE'],
  b2b: false,
  prepaid: true,
  kycImportEnabled: false,
};
const settings: ProgramAuthorization = {
  fees: { fx: 15_000, atm: 2_500_000, auth: 100_000 },
  fxRates: { EUR: '1.1', JPY: '0.0065' },
  clearingTolerance: 150_000,
  holdExpiryDays: 10,
  settlementAddress: '0x52908400098527886e0f7030069857d2e4169ee7',
};
const CHECKSUMMED = '0x52908400098527886E0F7030069857D2E4169EE7';

const created: DistributorEvent = {
  type: 'DistributorCreated',
  data: {
    distributorId: DISTRIBUTOR_ID,
    name: 'Acme',
    program: legacyProgram,
    isDefault: false,
    createdAt: T0,
  },
};
const configure = (authorization: ProgramAuthorization): DistributorCommand => ({
  type: 'ConfigureProgram',
  data: { program: { ...legacyProgram, authorization }, now: T1 },
});
const fold = (events: DistributorEvent[]): DistributorState =>
  events.reduce(distributorDecider.evolve, distributorDecider.initialState());
const programOf = (state: DistributorState) => (state.status === 'absent' ? null : state.program);

describe('distributor decider: authorization settings of the program', () => {
  it('records valid settings with the settlement address checksummed', () => {
    spec
      .given([created])
      .when(configure(settings))
      .then([
        {
          type: 'DistributorProgramConfigured',
          data: {
            distributorId: DISTRIBUTOR_ID,
            program: { ...legacyProgram, authorization: { ...settings, settlementAddress: CHECKSUMMED } },
            at: T1,
          },
        },
      ]);
  });

  it('makes the configured settings the ones in force', () => {
    const events = distributorDecider.decide(configure(settings), fold([created]));
    const program = programOf(fold([created, ...events]));
    expect(program && programAuthorization(program)).toEqual({ ...settings, settlementAddress: CHECKSUMMED });
  });

  it('creates a distributor with settings, and refuses invalid ones at creation too', () => {
    const create = (authorization: ProgramAuthorization): DistributorCommand => ({
      type: 'CreateDistributor',
      data: {
        distributorId: DISTRIBUTOR_ID,
        name: 'Acme',
        program: { ...legacyProgram, authorization },
        isDefault: false,
        now: T0,
      },
    });
    spec
      .given([])
      .when(create({ ...settings, settlementAddress: null }))
      .then([
        {
          type: 'DistributorCreated',
          data: {
            distributorId: DISTRIBUTOR_ID,
            name: 'Acme',
            program: { ...legacyProgram, authorization: { ...settings, settlementAddress: null } },
            isDefault: false,
            createdAt: T0,
          },
        },
      ]);
    spec
      .given([])
      .when(create({ ...settings, holdExpiryDays: 0 }))
      .thenThrows('validation_error', /holdExpiryDays/);
  });

  it('keeps the settings when a later configuration changes something else', () => {
    const withSettings = fold([created, ...distributorDecider.decide(configure(settings), fold([created]))]);
    const program = programOf(withSettings)!;
    const events = distributorDecider.decide(
      { type: 'ConfigureProgram', data: { program: { ...program, b2b: true }, now: T1 } },
      withSettings,
    );
    expect(programAuthorization(programOf(fold([created, ...events]))!)).toMatchObject({
      fees: settings.fees,
    });
  });

  it.each<[string, Partial<ProgramAuthorization>, RegExp]>([
    ['a negative fx fee', { fees: { ...settings.fees, fx: -1 } }, /fees\.fx/],
    ['an fx fee above 100%', { fees: { ...settings.fees, fx: 1_000_001 } }, /fees\.fx/],
    ['a fractional fee (more than 6 decimals)', { fees: { ...settings.fees, atm: 0.5 } }, /fees\.atm/],
    ['a negative auth fee', { fees: { ...settings.fees, auth: -100 } }, /fees\.auth/],
    ['a zero rate', { fxRates: { EUR: '0.000' } }, /fxRates\.EUR must be greater than 0/],
    ['a negative rate', { fxRates: { EUR: '-1.08' } }, /fxRates\.EUR must be a decimal/],
    ['a rate with 13 decimals', { fxRates: { EUR: '1.0000000000001' } }, /fxRates\.EUR must be a decimal/],
    ['an unknown currency code', { fxRates: { EUX: '1.08' } }, /EUX is not an ISO 4217 currency code/],
    ['a lower-case currency code', { fxRates: { eur: '1.08' } }, /eur is not an ISO 4217/],
    ['a rate for USD, the card currency', { fxRates: { USD: '1' } }, /card currency/],
    ['a tolerance beyond 100%', { clearingTolerance: 1_000_001 }, /clearingTolerance/],
    ['a negative tolerance', { clearingTolerance: -1 }, /clearingTolerance/],
    ['a hold expiry of 0 days', { holdExpiryDays: 0 }, /holdExpiryDays/],
    ['a hold expiry of 31 days', { holdExpiryDays: 31 }, /holdExpiryDays/],
    ['a hold expiry of 1.5 days', { holdExpiryDays: 1.5 }, /holdExpiryDays/],
    ['an address of 39 hex digits', { settlementAddress: `0x${'a'.repeat(39)}` }, /settlementAddress/],
    ['an address without 0x', { settlementAddress: 'a'.repeat(40) }, /settlementAddress/],
    [
      'an address with a wrong checksum',
      { settlementAddress: '0x52908400098527886e0F7030069857D2E4169EE7' },
      /settlementAddress/,
    ],
  ])('refuses %s', (_, change, message) => {
    spec
      .given([created])
      .when(configure({ ...settings, ...change }))
      .thenThrows('validation_error', message);
  });

  it('names every problem at once, each with its field', () => {
    let caught: unknown;
    try {
      distributorDecider.decide(
        configure({ ...settings, holdExpiryDays: 31, clearingTolerance: 2_000_000 }),
        fold([created]),
      );
    } catch (error) {
      caught = error;
    }
    expect(caught).toMatchObject({
      code: 'validation_error',
      details: [
        { field: 'program.authorization.clearingTolerance', message: expect.any(String) },
        { field: 'program.authorization.holdExpiryDays', message: expect.any(String) },
      ],
    });
  });

  it('accepts the edges: no fee, 100% tolerance, 1 and 30 days, the smallest rate, no address', () => {
    for (const edge of <Partial<ProgramAuthorization>[]>[
      { fees: { fx: 0, atm: 0, auth: 0 }, clearingTolerance: 1_000_000, holdExpiryDays: 1 },
      { holdExpiryDays: 30, fxRates: { EUR: '0.000000000001' }, settlementAddress: null },
      { fxRates: {} },
    ]) {
      expect(distributorDecider.decide(configure({ ...settings, ...edge }), fold([created]))).toHaveLength(1);
    }
  });
});

describe('distributor events recorded before authorization settings existed', () => {
  // Stored as JSON, the way the control store holds them: no `authorization` in the program.
  const stored = [
    { type: 'DistributorCreated', data: JSON.parse(JSON.stringify(created.data)) },
    {
      type: 'DistributorProgramConfigured',
      data: { distributorId: DISTRIBUTOR_ID, program: { ...legacyProgram, b2b: true }, at: T1 },
    },
  ].map((event, index) => ({
    streamId: DISTRIBUTOR_ID,
    revision: index,
    position: index + 1,
    type: event.type,
    data: event.data,
    metadata: {},
  }));

  it('still load, and the program has the default settings', () => {
    const state = fold(stored.map((recorded) => distributorEvents.read(recorded)));
    expect(state).toMatchObject({ status: 'active', program: { b2b: true }, updatedAt: T1 });
    expect(programAuthorization(programOf(state)!)).toEqual(DEFAULT_PROGRAM_AUTHORIZATION);
  });

  it('can be configured with settings afterwards', () => {
    const state = fold(stored.map((recorded) => distributorEvents.read(recorded)));
    const events = distributorDecider.decide(
      {
        type: 'ConfigureProgram',
        data: { program: { ...programOf(state)!, authorization: settings }, now: T1 },
      },
      state,
    );
    expect(
      programAuthorization(programOf(fold([...stored.map((r) => distributorEvents.read(r)), ...events]))!),
    ).toMatchObject({ fees: settings.fees, holdExpiryDays: 10 });
  });
});
