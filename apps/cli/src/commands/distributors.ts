import type { ApiKeyRecord, DistributorRecord, ProgramConfig } from '@cip/distributors/domain';
import { Command, InvalidArgumentError, Option } from 'commander';
import { Cli, commandGroup, examples, print, table, UsageError, yesNo } from '../command';
import { booleanOption, nonEmpty } from '../options';
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

/** `--countries fr,DE`: ISO 3166-1 alpha-2 codes, upper-cased and without duplicates. */
function countries(value: string): string[] {
  const codes = value
    .split(',')
    .map((code) => code.trim().toUpperCase())
    .filter((code) => code !== '');
  const invalid = codes.filter((code) => !/^[A-Z]{2}$/.test(code));
  if (invalid.length || codes.length === 0) {
    throw new InvalidArgumentError('Takes ISO 3166-1 alpha-2 codes such as FR,DE.');
  }
  return [...new Set(codes)];
}

const programLines = (program: ProgramConfig) => [
  `  countries   ${program.allowedCountries.join(', ')}`,
  `  b2b         ${yesNo(program.b2b)}`,
  `  prepaid     ${yesNo(program.prepaid)}`,
  `  kyc import  ${yesNo(program.kycImportEnabled)}`,
];

const countriesOption = (description: string) =>
  new Option('--countries <FR,DE,...>', description).argParser(countries);

interface ProgramFlags {
  countries?: string[];
  b2b?: boolean;
  prepaid?: boolean;
  kycImport?: boolean;
}

export function registerDistributorCommands(program: Command, cli: Cli): void {
  const distributors = commandGroup(
    program,
    'distributors',
    'Distributors (client platforms) and their programs.',
  );

  distributors
    .command('create')
    .description('Create a distributor (countries default to the EEA, the UK and Switzerland).')
    .requiredOption('--name <name>', "the distributor's name", nonEmpty)
    .addOption(countriesOption('countries its users may reside in'))
    .option('--b2b', 'business users allowed')
    .option('--prepaid', 'prepaid cards')
    .option('--kyc-import', 'KYC import allowed')
    .addHelpText('after', examples('distributors create --name Acme --countries FR,DE --b2b'))
    .action(
      cli.action<{ name: string } & ProgramFlags>(async (context, { options }) => {
        const program: Partial<ProgramConfig> = {
          b2b: options.b2b ?? false,
          prepaid: options.prepaid ?? false,
          kycImportEnabled: options.kycImport ?? false,
        };
        if (options.countries) program.allowedCountries = options.countries;
        const { service } = await openControlPlane(context);
        const distributor = await service.createDistributor({ name: options.name, program });
        await print(context, distributorView(distributor), () => [
          `Created distributor ${distributor.distributorId} (${distributor.name})`,
          ...programLines(distributor.program),
        ]);
        return 0;
      }),
    );

  distributors
    .command('list')
    .description('List the distributors, their programs and how many active keys they have.')
    .addHelpText('after', examples('distributors list', 'distributors list --json'))
    .action(
      cli.action(async (context) => {
        const { directory } = await openControlPlane(context);
        const all = directory.list();
        await print(context, all.map(distributorView), () =>
          all.length === 0
            ? ['No distributors yet.']
            : table(
                ['ID', 'NAME', 'COUNTRIES', 'B2B', 'PREPAID', 'KYC IMPORT', 'ACTIVE KEYS', 'DEFAULT'],
                all.map((d) => [
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
      }),
    );

  distributors
    .command('configure')
    .description("Change a distributor's program; options not given keep their value.")
    .argument('<distributorId>', 'the distributor (dst-...)')
    .addOption(countriesOption('countries its users may reside in'))
    .addOption(booleanOption('--b2b <true|false>', 'business users allowed'))
    .addOption(booleanOption('--prepaid <true|false>', 'prepaid cards'))
    .addOption(booleanOption('--kyc-import <true|false>', 'KYC import allowed'))
    .addHelpText('after', examples('distributors configure dst-... --prepaid true --countries FR,BE'))
    .action(
      cli.action<ProgramFlags>(async (context, { args: [distributorId], options }) => {
        const changes: Partial<ProgramConfig> = {};
        if (options.countries) changes.allowedCountries = options.countries;
        if (options.b2b !== undefined) changes.b2b = options.b2b;
        if (options.prepaid !== undefined) changes.prepaid = options.prepaid;
        if (options.kycImport !== undefined) changes.kycImportEnabled = options.kycImport;
        if (Object.keys(changes).length === 0) {
          throw new UsageError('Nothing to configure: give --countries, --b2b, --prepaid or --kyc-import');
        }
        const { service, directory } = await openControlPlane(context);
        existingDistributor(directory, distributorId);
        const distributor = await service.configureProgram(distributorId, changes);
        await print(context, distributorView(distributor), () => [
          `Configured distributor ${distributor.distributorId} (${distributor.name})`,
          ...programLines(distributor.program),
        ]);
        return 0;
      }),
    );
}
