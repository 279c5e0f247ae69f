import { ENVIRONMENTS, Environment } from '@cip/shared/contracts';
import { CollectionDifferences, rebuildProjections, verifyProjections } from '@cip/shared/infrastructure';
import { UsageError } from '../args';
import { Command, CommandFailed, print, table } from '../command';
import { runningPlatformPid } from '../platform-pid';
import { READ_MODELS } from '@cip/platform/registry';

const ENV_FLAG = { env: { kind: 'text', required: true, choices: ENVIRONMENTS } } as const;

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

export const projectionCommands: Command[] = [
  {
    group: 'projections',
    action: 'list',
    args: [],
    flags: {},
    description: 'List the read models that can be verified and rebuilt.',
    async run(context) {
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
    },
  },
  {
    group: 'projections',
    action: 'rebuild',
    args: ['name|all'],
    flags: ENV_FLAG,
    description: 'Clear a read model and replay the log into it; the platform must be stopped.',
    async run(context, { args, flags }) {
      const name = args['name|all'];
      const models = name === 'all' ? READ_MODELS : READ_MODELS.filter((m) => m.name === name);
      if (models.length === 0) {
        throw new UsageError(
          `Unknown read model "${name}"; known: ${READ_MODELS.map((m) => m.name).join(', ')}, all`,
        );
      }
      const pid = runningPlatformPid(context.dataDir);
      if (pid !== null) {
        throw new CommandFailed(
          `The platform is running on ${context.dataDir} (pid ${pid}). Stop it before rebuilding: ` +
            'its consumers would write into the collections while they are cleared and replayed.',
        );
      }
      const environment = flags.requiredText('env') as Environment;
      const started = performance.now();
      const outcomes = await rebuildProjections(context.infrastructure().scope(environment), models);
      const elapsedMs = Math.round(performance.now() - started);
      await print(context, { environment, elapsedMs, rebuilt: outcomes }, () => [
        ...outcomes.map(
          (o) =>
            `Rebuilt ${o.name} (${o.collections.join(', ')}) in ${environment} up to position ${o.position}`,
        ),
        `Done in ${elapsedMs} ms.`,
      ]);
      return 0;
    },
  },
  {
    group: 'projections',
    action: 'verify',
    args: [],
    flags: ENV_FLAG,
    description: 'Replay the log beside every read model and compare; exits with 1 on any difference.',
    async run(context, { flags }) {
      const environment = flags.requiredText('env') as Environment;
      if (runningPlatformPid(context.dataDir) !== null) {
        context.io.err(
          'Note: the platform is running; documents it writes during the verification may show as differences.\n',
        );
      }
      const results = await verifyProjections(context.infrastructure().scope(environment), READ_MODELS);
      const ok = results.every((r) => differenceCount(r) === 0);
      await print(context, { environment, ok, collections: results }, () => [
        ...results.flatMap(differenceLines),
        ok ? 'Every read model matches the log.' : 'Some read models differ from the log.',
      ]);
      return ok ? 0 : 1;
    },
  },
];
