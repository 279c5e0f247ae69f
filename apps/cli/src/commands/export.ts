import { RecordedEvent } from '@cip/shared/eventing';
import { STORE_SCOPES, StoreScope } from '@cip/shared/infrastructure';
import { Command, Option } from 'commander';
import { Cli, CommandContext, CommandFailed, commandGroup, examples } from '../command';
import { nonNegativeInteger } from '../options';

const PAGE = 1000;

const ndjson = (events: RecordedEvent[]) =>
  events
    .map(({ streamId, revision, position, type, data, metadata }) =>
      JSON.stringify({ streamId, revision, position, type, data, metadata }),
    )
    .join('\n') + '\n';

const scopeOption = () =>
  new Option('--env <scope>', 'store to read: an environment, or the control plane')
    .choices(STORE_SCOPES)
    .makeOptionMandatory();

/** The log as stored: personal data stays sealed, so an export never carries a person in clear. */
const eventStoreOf = (context: CommandContext, scope: StoreScope) =>
  context.infrastructure().scope(scope).storedEventStore;

/**
 * Events are written one page at a time, so exporting a large log never holds it all in memory. Personal
 * fields appear sealed (`data.personal`), as the log stores them.
 */
export function registerExportCommands(program: Command, cli: Cli): void {
  const exports = commandGroup(
    program,
    'export',
    'Recorded events as NDJSON on stdout (progress, if any, goes to stderr).',
  );

  exports
    .command('stream')
    .description('Print the events of one stream as NDJSON.')
    .argument('<streamId>', 'the stream (an entity id: usr-..., wlt-..., dst-...)')
    .addOption(scopeOption())
    .addHelpText('after', examples('export stream usr-... --env sandbox > user.ndjson'))
    .action(
      cli.action<{ env: StoreScope }>(async (context, { args: [streamId], options }) => {
        const store = eventStoreOf(context, options.env);
        const progress = context.progress(`export stream ${streamId} (${options.env})`);
        let fromRevision = 0;
        for (;;) {
          const events = await store.readStream(streamId, { fromRevision, maxCount: PAGE });
          if (events.length === 0) break;
          await context.io.out(ndjson(events));
          fromRevision = events[events.length - 1].revision + 1;
          progress.update(() => `${fromRevision} events`);
        }
        if (fromRevision === 0) throw new CommandFailed(`Stream ${streamId} has no events in ${options.env}`);
        progress.done(`${fromRevision} events exported`);
        return 0;
      }),
    );

  exports
    .command('log')
    .description('Print the log as NDJSON in log order, from position --from (default 1) on.')
    .addOption(scopeOption())
    .option('--from <position>', 'first log position to print', nonNegativeInteger)
    .addHelpText(
      'after',
      examples(
        'export log --env sandbox > sandbox.ndjson',
        'export log --env control --from 120 --progress | gzip > control.ndjson.gz',
      ),
    )
    .action(
      cli.action<{ env: StoreScope; from?: number }>(async (context, { options }) => {
        const store = eventStoreOf(context, options.env);
        const progress = context.progress(`export log (${options.env})`);
        const head = await store.headPosition();
        let after = Math.max(0, (options.from ?? 1) - 1);
        let exported = 0;
        for (;;) {
          const events = await store.readAll({ after, maxCount: PAGE });
          if (events.length === 0) break;
          await context.io.out(ndjson(events));
          exported += events.length;
          after = events[events.length - 1].position;
          progress.update(() => `${exported} events, position ${after} of ${head}`);
        }
        progress.done(`${exported} events exported, up to position ${after}`);
        return 0;
      }),
    );
}
