import { merchantAmountText } from '@cip/authorizations/domain';
import { ClearingExceptions } from '@cip/authorizations/service';
import type { Environment } from '@cip/shared/contracts';
import { systemClock } from '@cip/shared/runtime';
import { type Command, InvalidArgumentError, Option } from 'commander';
import { Cli, commandGroup, examples, print, table } from '../command';
import { environmentOption, nonNegativeInteger } from '../options';

const limitOption = () =>
  new Option('--limit <n>', 'how many, newest first (1 to 100)').default(50).argParser((value: string) => {
    const limit = nonNegativeInteger(value);
    if (limit < 1 || limit > 100) throw new InvalidArgumentError('Takes a whole number from 1 to 100.');
    return limit;
  });

export function registerAuthorizationCommands(program: Command, cli: Cli): void {
  const authorizations = commandGroup(program, 'authorizations', 'Card authorizations: clearing follow-up.');

  authorizations
    .command('clearing-exceptions')
    .description(
      'List the lines of imported clearing files that could not apply (unknown authorization or card, ' +
        "beyond the program's tolerance, already closed), newest first, as the platform recorded them.",
    )
    .addOption(environmentOption())
    .option('--file <fileId>', 'only the lines of this clearing file (CLR-...)')
    .addOption(limitOption())
    .option('--page <n>', 'page of --limit lines, from 0', nonNegativeInteger, 0)
    .addHelpText(
      'after',
      examples(
        'authorizations clearing-exceptions --env sandbox',
        'authorizations clearing-exceptions --env production --file CLR-production-20261123-000001 --json',
      ),
    )
    .action(
      cli.action<{ env: Environment; file?: string; limit: number; page: number }>(
        async (context, { options }) => {
          const infrastructure = context.infrastructure();
          const exceptions = new ClearingExceptions(
            {
              eventStore: (environment) => infrastructure.scope(environment).eventStore,
              readStore: (environment) => infrastructure.scope(environment).readStore,
            },
            systemClock,
          );
          const found = await exceptions.list(options.env, {
            fileId: options.file,
            limit: options.limit,
            page: options.page,
          });
          await print(context, found, () =>
            found.items.length === 0
              ? [`No clearing exceptions in ${options.env}${options.file ? ` for ${options.file}` : ''}.`]
              : [
                  ...table(
                    ['RECORDED', 'FILE', 'LINE', 'KIND', 'RRN', 'CARD', 'AMOUNT', 'CODE', 'REASON'],
                    found.items.map((e) => [
                      e.createdAt,
                      e.fileId,
                      String(e.sequence),
                      e.kind,
                      e.rrn,
                      e.cardId,
                      `${merchantAmountText(e.amountMinor, e.currency)} ${e.currency}`,
                      e.code,
                      e.reason,
                    ]),
                  ),
                  ...(found.hasMore ? [`More: --page ${options.page + 1}`] : []),
                ],
          );
          return 0;
        },
      ),
    );
}
