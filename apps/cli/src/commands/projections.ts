import { READ_MODELS } from '@cip/platform/registry';
import type { Environment } from '@cip/shared/contracts';
import {
  CollectionDifferences,
  rebuildProjections,
  ReplayProgress,
  verifyProjections,
} from '@cip/shared/infrastructure';
import { Argument, Command } from 'commander';
import { Cli, CommandContext, CommandFailed, commandGroup, examples, print, table } from '../command';
import { environmentOption } from '../options';
import { runningPlatformPid } from '../platform-pid';

const differenceCount = (result: CollectionDifferences) =>
  result.missing.length + result.extra.length + result.different.length;

function differenceLines(result: CollectionDifferences): string[] {
  const lines = [
    `${result.name} / ${result.collection}: ` +
      (differenceCount(result) === 0
        ? `ok (${result.total} documents)`
        : `${differenceCount(result)} difference(s) among ${result.total} documents`),
  ];
  for (const kind of ['missing', 'extra', 'different'] as const) {
    for (const id of result[kind]) lines.push(`  ${kind.padEnd(9)} ${id}`);
  }
  return lines;
}

/** Reports the replays of `projections rebuild|verify` as they read the log. */
function replayProgress(context: CommandContext, label: string) {
  const progress = context.progress(label);
  let last: ReplayProgress | null = null;
  return {
    listener: (at: ReplayProgress) => {
      last = at;
      progress.update(() => `${at.name}: position ${at.position} of ${at.head} (${at.events} events read)`);
    },
    done: (models: number) =>
      progress.done(`${models} read model(s) replayed, the log read up to position ${last?.position ?? 0}`),
  };
}

export function registerProjectionCommands(program: Command, cli: Cli): void {
  const projections = commandGroup(
    program,
    'projections',
    'Read models: list them, verify them against the log, rebuild them from it.',
  );

  projections
    .command('list')
    .description('List the read models that can be verified and rebuilt.')
    .addHelpText('after', examples('projections list'))
    .action(
      cli.action(async (context) => {
        const models = READ_MODELS.map(({ name, group, topics, collections }) => ({
          name,
          group,
          topics,
          collections,
        }));
        await print(context, models, () =>
          table(
            ['NAME', 'CONSUMER GROUP', 'TOPICS', 'COLLECTIONS'],
            models.map((m) => [m.name, m.group, m.topics.join(','), m.collections.join(',')]),
          ),
        );
        return 0;
      }),
    );

  projections
    .command('rebuild')
    .description('Clear a read model and replay the log into it; the platform must be stopped.')
    .addArgument(
      new Argument('<name|all>', 'the read model to rebuild, or all').choices([
        ...READ_MODELS.map((m) => m.name),
        'all',
      ]),
    )
    .addOption(environmentOption())
    .addHelpText(
      'after',
      examples(
        'projections rebuild users --env sandbox',
        'projections rebuild all --env production --progress',
      ),
    )
    .action(
      cli.action<{ env: Environment }>(async (context, { args: [name], options }) => {
        const models = name === 'all' ? READ_MODELS : READ_MODELS.filter((m) => m.name === name);
        const pid = runningPlatformPid(context.dataDir);
        if (pid !== null) {
          throw new CommandFailed(
            `The platform is running on ${context.dataDir} (pid ${pid}). Stop it before rebuilding: ` +
              'its consumers would write into the collections while they are cleared and replayed.',
          );
        }
        const environment = options.env;
        const progress = replayProgress(context, `projections rebuild (${environment})`);
        const started = performance.now();
        const outcomes = await rebuildProjections(
          context.infrastructure().scope(environment),
          models,
          progress.listener,
        );
        const elapsedMs = Math.round(performance.now() - started);
        progress.done(outcomes.length);
        await print(context, { environment, elapsedMs, rebuilt: outcomes }, () => [
          ...outcomes.map(
            (o) =>
              `Rebuilt ${o.name} (${o.collections.join(', ')}) in ${environment} up to position ${o.position}`,
          ),
          `Done in ${elapsedMs} ms.`,
        ]);
        return 0;
      }),
    );

  projections
    .command('verify')
    .description('Replay the log beside every read model and compare; exits with 1 on any difference.')
    .addOption(environmentOption())
    .addHelpText(
      'after',
      examples('projections verify --env production', 'projections verify --env sandbox --json'),
    )
    .action(
      cli.action<{ env: Environment }>(async (context, { options }) => {
        const environment = options.env;
        if (runningPlatformPid(context.dataDir) !== null) {
          context.io.err(
            'Note: the platform is running; documents it writes during the verification may show as differences.\n',
          );
        }
        const progress = replayProgress(context, `projections verify (${environment})`);
        const results = await verifyProjections(
          context.infrastructure().scope(environment),
          READ_MODELS,
          progress.listener,
        );
        progress.done(READ_MODELS.length);
        const ok = results.every((r) => differenceCount(r) === 0);
        await print(context, { environment, ok, collections: results }, () => [
          ...results.flatMap(differenceLines),
          ok ? 'Every read model matches the log.' : 'Some read models differ from the log.',
        ]);
        return ok ? 0 : 1;
      }),
    );
}
