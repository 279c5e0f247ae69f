import { programAuthorization } from '@cip/authorizations/contract';
import {
  changesAuthorization,
  parseCountries,
  parseThreeDsDeadline as parseThreeDsDeadlineText,
  programUpdate,
} from '@cip/distributors/contract';
import { DEFAULT_THREE_DS_DEADLINE_SECONDS } from '@cip/three-ds/contract';
import type { DistributorRecord, ProgramConfig } from '@cip/distributors/domain';
import { keyView } from '@cip/distributors/service';
import { Command, Option } from 'commander';
import { Cli, commandGroup, examples, print, table, UsageError, yesNo } from '../command';
import { booleanOption, nonEmpty } from '../options';
import { existingDistributor, openControlPlane } from './control-plane';
import {
  AUTHORIZATION_HELP,
  type AuthorizationFlags,
  authorizationLines,
  authorizationOptions,
  changedAuthorization,
  optionParser,
} from './program-authorization';

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
const countries = optionParser((value: string) => parseCountries(value.split(',')));

const programLines = (program: ProgramConfig) => [
  `  countries   ${program.allowedCountries.join(', ')}`,
  `  b2b         ${yesNo(program.b2b)}`,
  `  prepaid     ${yesNo(program.prepaid)}`,
  `  kyc import  ${yesNo(program.kycImportEnabled)}`,
  `  3DS deadline ${program.threeDs?.challengeDeadlineSeconds ?? DEFAULT_THREE_DS_DEADLINE_SECONDS} s${program.threeDs ? '' : ' (default)'}`,
];

const countriesOption = (description: string) =>
  new Option('--countries <FR,DE,...>', description).argParser(countries);

interface ProgramFlags {
  countries?: string[];
  b2b?: boolean;
  prepaid?: boolean;
  kycImport?: boolean;
  threeDsDeadline?: number;
}

/** `--three-ds-deadline 3m`: 1 to 10 minutes, in minutes (`3m`) or seconds (`90s`); in whole seconds. */
export const parseThreeDsDeadline = optionParser((value: string) => parseThreeDsDeadlineText(value));

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

  const configure = distributors
    .command('configure')
    .description("Change a distributor's program; options not given keep their value.")
    .argument('<distributorId>', 'the distributor (dst-...)')
    .addOption(countriesOption('countries its users may reside in'))
    .addOption(booleanOption('--b2b <true|false>', 'business users allowed'))
    .addOption(booleanOption('--prepaid <true|false>', 'prepaid cards'))
    .addOption(booleanOption('--kyc-import <true|false>', 'KYC import allowed'))
    .addOption(
      new Option(
        '--three-ds-deadline <duration>',
        "how long a 3DS challenge waits for the distributor's answer before it is refused: 1m to 10m (default 5m)",
      ).argParser(parseThreeDsDeadline),
    );
  for (const option of authorizationOptions()) configure.addOption(option);
  configure
    .addHelpText(
      'after',
      AUTHORIZATION_HELP +
        examples(
          'distributors configure dst-... --prepaid true --countries FR,BE',
          'distributors configure dst-... --fee-fx 2% --fee-atm 2.50USD --fee-auth 0',
          'distributors configure dst-... --fee-fx 15000 --fee-auth 100000   (1.5%, 0.10 USD)',
          'distributors configure dst-... --fx-rate EUR=1.0856 --fx-rate SEK=0.095 --fx-rate JPY=none',
          'distributors configure dst-... --clearing-tolerance 15% --hold-expiry-days 10',
          'distributors configure dst-... --three-ds-deadline 3m',
          'distributors configure dst-... --settlement-address 0x52908400098527886E0F7030069857D2E4169EE7',
        ),
    )
    .action(
      cli.action<ProgramFlags & AuthorizationFlags>(async (context, { args: [distributorId], options }) => {
        const { threeDsDeadline, ...flags } = options;
        const given =
          [flags.countries, flags.b2b, flags.prepaid, flags.kycImport, threeDsDeadline].some(
            (value) => value !== undefined,
          ) || changesAuthorization(flags);
        if (!given) {
          throw new UsageError(
            'Nothing to configure: give --countries, --b2b, --prepaid, --kyc-import, --three-ds-deadline or an authorization ' +
              'setting (--fee-fx, --fee-atm, --fee-auth, --fx-rate, --clearing-tolerance, ' +
              '--hold-expiry-days, --settlement-address)',
          );
        }
        const { service, directory } = await openControlPlane(context);
        const current = existingDistributor(directory, distributorId);
        // The authorization settings are checked (and their problems named by flag) before the rest applies.
        const authorization = changedAuthorization(current.program, flags);
        const changes = programUpdate(current.program, { ...flags, threeDsDeadlineSeconds: threeDsDeadline });
        if (authorization) changes.authorization = authorization;
        const distributor = await service.configureProgram(distributorId, changes);
        await print(context, distributorView(distributor), () => [
          `Configured distributor ${distributor.distributorId} (${distributor.name})`,
          ...programLines(distributor.program),
          ...authorizationLines(distributor.program),
        ]);
        return 0;
      }),
    );

  distributors
    .command('show')
    .description('Show a distributor: its program, with the authorization settings in force, and its keys.')
    .argument('<distributorId>', 'the distributor (dst-...)')
    .addHelpText('after', examples('distributors show dst-...', 'distributors show dst-... --json'))
    .action(
      cli.action(async (context, { args: [distributorId] }) => {
        const { directory } = await openControlPlane(context);
        const distributor = existingDistributor(directory, distributorId);
        const view = distributorView(distributor);
        await print(
          context,
          {
            ...view,
            program: { ...view.program, authorization: programAuthorization(distributor.program) },
            authorizationSettings: distributor.program.authorization ? 'configured' : 'defaults',
          },
          () => [
            `Distributor ${distributor.distributorId} (${distributor.name})${distributor.isDefault ? ', default' : ''}`,
            ...programLines(distributor.program),
            ...authorizationLines(distributor.program),
            `  active keys ${distributor.keys.filter((k) => k.status === 'active').length}`,
          ],
        );
        return 0;
      }),
    );
}
