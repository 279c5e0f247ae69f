import { RecordedEvent } from '@cip/shared/eventing';
import { STORE_SCOPES, StoreScope } from '@cip/shared/infrastructure';
import { UsageError } from '../args';
import { Command, CommandContext, CommandFailed } from '../command';

const PAGE = 1000;

const ndjson = (events: RecordedEvent[]) =>
  events
    .map(({ streamId, revision, position, type, data, metadata }) =>
      JSON.stringify({ streamId, revision, position, type, data, metadata }),
    )
    .join('\n') + '\n';

const SCOPE_FLAG = { env: { kind: 'text', required: true, choices: STORE_SCOPES } } as const;

/** The log as stored: personal data stays sealed, so an export never carries a person in clear. */
const eventStoreOf = (context: CommandContext, scope: string) =>
  context.infrastructure().scope(scope as StoreScope).storedEventStore;

/**
 * Events are written one page at a time, so exporting a large log never holds it all in memory. Personal
 * fields appear sealed (`data.personal`), as the log stores them.
 */
export const exportCommands: Command[] = [
  {
    group: 'export',
    action: 'stream',
    args: ['streamId'],
    flags: SCOPE_FLAG,
    description: 'Print the events of one stream as NDJSON.',
    async run(context, { args, flags }) {
      const store = eventStoreOf(context, flags.requiredText('env'));
      let fromRevision = 0;
      for (;;) {
        const events = await store.readStream(args.streamId, { fromRevision, maxCount: PAGE });
        if (events.length === 0) break;
        await context.io.out(ndjson(events));
        fromRevision = events[events.length - 1].revision + 1;
      }
      if (fromRevision === 0) {
        throw new CommandFailed(`Stream ${args.streamId} has no events in ${flags.requiredText('env')}`);
      }
      return 0;
    },
  },
  {
    group: 'export',
    action: 'log',
    args: [],
    flags: { ...SCOPE_FLAG, from: { kind: 'text', valueName: 'position' } },
    description: 'Print the log as NDJSON in log order, from position --from (default 1) on.',
    async run(context, { flags }) {
      const from = flags.text('from') ?? '1';
      if (!/^\d+$/.test(from))
        throw new UsageError(`--from takes a log position (an integer), not "${from}"`);
      const store = eventStoreOf(context, flags.requiredText('env'));
      let after = Math.max(0, Number(from) - 1);
      for (;;) {
        const events = await store.readAll({ after, maxCount: PAGE });
        if (events.length === 0) return 0;
        await context.io.out(ndjson(events));
        after = events[events.length - 1].position;
      }
    },
  },
];
