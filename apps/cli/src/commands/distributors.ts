import type { ApiKeyRecord, DistributorRecord, ProgramConfig } from '@cip/distributors/domain';
import { ParsedFlags, UsageError } from '../args';
import { Command, print, table, yesNo } from '../command';
import { existingDistributor, openControlPlane } from './control-plane';

/** A key as operators may see it: everything but its hash. */
export function keyView(key: ApiKeyRecord) {
  return {
    keyId: key.keyId,
    environment: key.environment,
    last4: key.last4,
    label: key.label,
    status: key.status,
    createdAt: key.createdAt,
    revokedAt: key.revokedAt,
  };
}

function distributorView(distributor: DistributorRecord) {
  return {
    distributorId: distributor.distributorId,
    name: distributor.name,
    isDefault: distributor.isDefault,
    program: distributor.program,
    keys: distributor.keys.map(keyView),
    createdAt: distributor.createdAt,
    updatedAt: distributor.updatedAt,
  };
}

function countries(flags: ParsedFlags): string[] | undefined {
  const codes = flags.list('countries')?.map((code) => code.toUpperCase());
  if (!codes) return undefined;
  const invalid = codes.filter((code) => !/^[A-Z]{2}$/.test(code));
  if (invalid.length || codes.length === 0) {
    throw new UsageError(
      `--countries takes ISO 3166-1 alpha-2 codes such as FR,DE; got "${invalid.join(',')}"`,
    );
  }
  return [...new Set(codes)];
}

const programLines = (program: ProgramConfig) => [
  `  countries   ${program.allowedCountries.join(', ')}`,
  `  b2b         ${yesNo(program.b2b)}`,
  `  prepaid     ${yesNo(program.prepaid)}`,
  `  kyc import  ${yesNo(program.kycImportEnabled)}`,
];

const COUNTRIES_FLAG = { kind: 'list', valueName: 'FR,DE,...' } as const;

export const distributorCommands: Command[] = [
  {
    group: 'distributors',
    action: 'create',
    args: [],
    flags: {
      name: { kind: 'text', required: true },
      countries: COUNTRIES_FLAG,
      b2b: { kind: 'switch' },
      prepaid: { kind: 'switch' },
      'kyc-import': { kind: 'switch' },
    },
    description: 'Create a distributor (countries default to the EEA, the UK and Switzerland).',
    async run(context, { flags }) {
      const name = flags.requiredText('name').trim();
      if (!name) throw new UsageError('--name must not be empty');
      const program: Partial<ProgramConfig> = {
        b2b: flags.bool('b2b') ?? false,
        prepaid: flags.bool('prepaid') ?? false,
        kycImportEnabled: flags.bool('kyc-import') ?? false,
      };
      const allowedCountries = countries(flags);
      if (allowedCountries) program.allowedCountries = allowedCountries;
      const { service } = await openControlPlane(context);
      const distributor = await service.createDistributor({ name, program });
      await print(context, distributorView(distributor), () => [
        `Created distributor ${distributor.distributorId} (${distributor.name})`,
        ...programLines(distributor.program),
      ]);
      return 0;
    },
  },
  {
    group: 'distributors',
    action: 'list',
    args: [],
    flags: {},
    description: 'List the distributors, their programs and how many active keys they have.',
    async run(context) {
      const { directory } = await openControlPlane(context);
      const distributors = directory.list();
      await print(context, distributors.map(distributorView), () =>
        distributors.length === 0
          ? ['No distributors yet.']
          : table(
              ['ID', 'NAME', 'COUNTRIES', 'B2B', 'PREPAID', 'KYC IMPORT', 'ACTIVE KEYS', 'DEFAULT'],
              distributors.map((d) => [
                d.distributorId,
                d.name,
                d.program.allowedCountries.length > 5
                  ? `${d.program.allowedCountries.length} countries`
                  : d.program.allowedCountries.join(','),
                yesNo(d.program.b2b),
                yesNo(d.program.prepaid),
                yesNo(d.program.kycImportEnabled),
                String(d.keys.filter((k) => k.status === 'active').length),
                d.isDefault ? 'default' : '',
              ]),
            ),
      );
      return 0;
    },
  },
  {
    group: 'distributors',
    action: 'configure',
    args: ['distributorId'],
    flags: {
      countries: COUNTRIES_FLAG,
      b2b: { kind: 'boolean' },
      prepaid: { kind: 'boolean' },
      'kyc-import': { kind: 'boolean' },
    },
    description: "Change a distributor's program; flags not given keep their value.",
    async run(context, { args, flags }) {
      const changes: Partial<ProgramConfig> = {};
      const allowedCountries = countries(flags);
      if (allowedCountries) changes.allowedCountries = allowedCountries;
      const b2b = flags.bool('b2b');
      if (b2b !== undefined) changes.b2b = b2b;
      const prepaid = flags.bool('prepaid');
      if (prepaid !== undefined) changes.prepaid = prepaid;
      const kycImport = flags.bool('kyc-import');
      if (kycImport !== undefined) changes.kycImportEnabled = kycImport;
      if (Object.keys(changes).length === 0) {
        throw new UsageError('Nothing to configure: give --countries, --b2b, --prepaid or --kyc-import');
      }
      const { service, directory } = await openControlPlane(context);
      existingDistributor(directory, args.distributorId);
      const distributor = await service.configureProgram(args.distributorId, changes);
      await print(context, distributorView(distributor), () => [
        `Configured distributor ${distributor.distributorId} (${distributor.name})`,
        ...programLines(distributor.program),
      ]);
      return 0;
    },
  },
];
