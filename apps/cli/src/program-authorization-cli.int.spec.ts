import { DEFAULT_PROGRAM_AUTHORIZATION } from '@cip/authorizations/contract';
import { openEmbeddedInfrastructure } from '@cip/shared/infrastructure';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { runCliCaptured } from './testing/run-cli-captured';

// The program's card authorization settings as the operator sets them (issue 12): fees, fx rates, clearing
// tolerance, hold expiry and settlement address, with `distributors configure`, read with `distributors show`.

describe('cli: program authorization settings', () => {
  let dataDir: string;
  let distributorId: string;
  const cli = (...argv: string[]) => runCliCaptured([...argv, '--data-dir', dataDir]);
  const cliJson = async <T>(...argv: string[]): Promise<T> => {
    const run = await cli(...argv, '--json');
    expect(run).toMatchObject({ code: 0, stderr: '' });
    return JSON.parse(run.stdout) as T;
  };
  const controlLog = async () => {
    const infrastructure = openEmbeddedInfrastructure({ dataDir });
    try {
      return await infrastructure.scope('control').eventStore.readAll();
    } finally {
      await infrastructure.close();
    }
  };
  interface Shown {
    program: { authorization: Record<string, unknown>; b2b: boolean };
    authorizationSettings: 'configured' | 'defaults';
  }

  beforeEach(async () => {
    dataDir = mkdtempSync(join(tmpdir(), 'cip-cli-program-'));
    ({ distributorId } = await cliJson<{ distributorId: string }>(
      'distributors',
      'create',
      '--name',
      'Acme',
    ));
  });
  afterEach(() => rmSync(dataDir, { recursive: true, force: true }));

  it('shows the defaults of a program never configured', async () => {
    expect(await cliJson<Shown>('distributors', 'show', distributorId)).toMatchObject({
      authorizationSettings: 'defaults',
      program: {
        authorization: {
          fees: { fx: 20_000, atm: 0, auth: 0 },
          fxRates: { EUR: '1.08', GBP: '1.27', CHF: '1.13', CAD: '0.73', JPY: '0.0067' },
          clearingTolerance: 200_000,
          holdExpiryDays: 7,
          settlementAddress: null,
        },
      },
    });
    const text = await cli('distributors', 'show', distributorId);
    expect(text.stdout).toContain('authorization settings (defaults)');
    expect(text.stdout).toContain('fee fx        2% (20000)');
  });

  it('sets fees as percents, USD or 6 implied decimals, rates, tolerance, expiry and address; keeps the rest', async () => {
    const configured = await cli(
      'distributors',
      'configure',
      distributorId,
      '--fee-fx',
      '1.5%',
      '--fee-atm',
      '2.50USD',
      '--fee-auth',
      '100000',
      '--fx-rate',
      'eur=1.0856',
      '--fx-rate',
      'SEK=0.095',
      '--fx-rate',
      'JPY=none',
      '--clearing-tolerance',
      '15%',
      '--hold-expiry-days',
      '10',
      '--settlement-address',
      '0x52908400098527886e0f7030069857d2e4169ee7',
    );
    expect(configured).toMatchObject({ code: 0, stderr: '' });
    expect(configured.stdout).toContain('fee atm       2.50 USD (2500000)');
    expect(configured.stdout).toContain('fee auth      0.10 USD (100000)');
    // The sandbox's test rates, EUR and SEK as set, JPY removed.
    const rates = /fx rates +(.*) \(USD per unit\)/.exec(configured.stdout)?.[1].split(', ') ?? [];
    expect(rates).toEqual(expect.arrayContaining(['EUR 1.0856', 'SEK 0.095', 'GBP 1.27', 'CHF 1.13']));
    expect(rates.some((rate) => rate.startsWith('JPY'))).toBe(false);

    const { JPY: _removed, ...defaults } = DEFAULT_PROGRAM_AUTHORIZATION.fxRates;
    const expectedRates = { ...defaults, EUR: '1.0856', SEK: '0.095' };
    await cliJson('distributors', 'configure', distributorId, '--b2b', 'true');
    expect(await cliJson<Shown>('distributors', 'show', distributorId)).toEqual(
      expect.objectContaining({
        authorizationSettings: 'configured',
        program: expect.objectContaining({
          b2b: true,
          authorization: {
            fees: { fx: 15_000, atm: 2_500_000, auth: 100_000 },
            fxRates: expectedRates,
            clearingTolerance: 150_000,
            holdExpiryDays: 10,
            settlementAddress: '0x52908400098527886E0F7030069857D2E4169EE7',
          },
        }),
      }),
    );

    await cliJson(
      'distributors',
      'configure',
      distributorId,
      '--fee-fx',
      '0',
      '--settlement-address',
      'none',
    );
    expect((await cliJson<Shown>('distributors', 'show', distributorId)).program.authorization).toMatchObject(
      {
        fees: { fx: 0, atm: 2_500_000, auth: 100_000 },
        settlementAddress: null,
      },
    );
  });

  it('refuses every invalid value with a usage error naming it, and records nothing', async () => {
    const before = (await controlLog()).length;
    const cases: [string[], string][] = [
      [['--fee-fx', '-1%'], 'Must not be negative.'],
      [['--fee-atm', '-2500000'], 'Must not be negative.'],
      [['--fee-fx', '101%'], '--fee-fx/--fee-atm/--fee-auth: must be a whole number in 6 implied decimals'],
      [['--fee-fx', '0.00001%'], 'Takes at most 4 decimals in a percent'],
      [['--fee-auth', '0.0000001USD'], 'Takes at most 6 decimals of USD.'],
      [['--fee-auth', '2.5'], 'Takes USD (2.50USD) or a whole number in 6 implied decimals'],
      [['--fx-rate', 'EUR=0'], '--fx-rate: must be greater than 0'],
      [['--fx-rate', 'EUR=-1.08'], 'Must not be negative.'],
      [['--fx-rate', 'EUR'], 'Takes CUR=rate'],
      [['--fx-rate', 'EUX=1.08'], '--fx-rate: EUX is not an ISO 4217 currency code'],
      [['--fx-rate', 'USD=1'], 'card currency'],
      [['--fx-rate', 'EUR=1.0000000000001'], 'Takes at most 12 decimals in a rate.'],
      [['--clearing-tolerance', '100.0001%'], '--clearing-tolerance: must be a whole number'],
      [['--hold-expiry-days', '0'], '--hold-expiry-days: must be a whole number of days from 1 to 30'],
      [['--hold-expiry-days', '31'], '--hold-expiry-days: must be a whole number of days from 1 to 30'],
      [['--settlement-address', '0x1234'], '--settlement-address: must be an EVM address'],
      [
        ['--settlement-address', '0x52908400098527886e0F7030069857D2E4169EE7'],
        '--settlement-address: must be an EVM address',
      ],
    ];
    for (const [flags, reason] of cases) {
      const run = await cli('distributors', 'configure', distributorId, ...flags);
      expect({ flags, ...run }).toMatchObject({ flags, code: 2, stdout: '' });
      expect(run.stderr).toContain(reason);
      expect(run.stderr).toContain('Usage: npm run cli -- distributors configure');
    }
    expect((await controlLog()).length).toBe(before);
    const unknown = await cli('distributors', 'configure', 'dst-unknown', '--fee-fx', '1%');
    expect(unknown).toEqual({
      code: 1,
      stdout: '',
      stderr: 'error: Distributor dst-unknown was not found\n',
    });
    expect((await cli('distributors', 'show', 'dst-unknown')).code).toBe(1);
  });

  it('documents the units with examples in the help', async () => {
    const help = await cli('distributors', 'configure', '--help');
    expect(help.code).toBe(0);
    expect(help.stdout).toContain('2% = 20000');
    expect(help.stdout).toContain('2.50USD = 2500000');
    expect(help.stdout).toContain('--fx-rate EUR=1.0856');
  });
});
