import { PLATFORM_PERSONAL_DATA } from '@cip/platform/registry';
import { DomainError } from '@cip/shared/contracts';
import { Infrastructure, openEmbeddedInfrastructure } from '@cip/shared/infrastructure';
import { resolve } from 'node:path';
import { flagSynopsis, FlagSpecs, parseCommandLine, UsageError } from './args';
import { CliIo, Command, CommandContext, CommandFailed } from './command';
import { distributorCommands } from './commands/distributors';
import { exportCommands } from './commands/export';
import { keyCommands } from './commands/keys';
import { kycCommands } from './commands/kyc';
import { projectionCommands } from './commands/projections';
import { userCommands } from './commands/users';
import { walletCommands } from './commands/wallets';
import { webhookCommands } from './commands/webhooks';

const COMMANDS: Command[] = [
  ...distributorCommands,
  ...keyCommands,
  ...userCommands,
  ...projectionCommands,
  ...exportCommands,
  ...kycCommands,
  ...walletCommands,
  ...webhookCommands,
];

const GLOBAL_FLAGS: FlagSpecs = {
  'data-dir': { kind: 'text', valueName: 'path' },
  json: { kind: 'switch' },
  help: { kind: 'switch' },
};

const synopsis = (command: Command) =>
  [
    command.group,
    command.action,
    ...command.args.map((arg) => `<${arg}>`),
    ...Object.entries(command.flags).map(([name, spec]) => flagSynopsis(name, spec)),
  ].join(' ');

/** The help text: every command, or those of one group when `group` names one. */
export function usage(group?: string): string {
  const inGroup = COMMANDS.filter((c) => c.group === group);
  const lines = ['Usage: npm run cli -- <command> [options]', '', 'Commands:'];
  for (const command of inGroup.length ? inGroup : COMMANDS) {
    lines.push(`  ${synopsis(command)}`, `      ${command.description}`);
  }
  lines.push(
    '',
    'Options of every command:',
    '  --data-dir <path>  data directory (default: $DATA_DIR, else ./data)',
    '  --json             print JSON instead of text (exports are always NDJSON)',
    '  --help             print this help',
  );
  return `${lines.join('\n')}\n`;
}

function findCommand(words: string[]): Command {
  const command = COMMANDS.find((c) => c.group === words[0] && c.action === words[1]);
  if (!command) throw new UsageError(`Unknown command "${words.join(' ')}"`);
  return command;
}

/**
 * Runs one CLI command line (`argv` without node and the script) and returns the exit code: 0 on success,
 * 1 when the command failed (a domain rule, a refusal, a difference found by `projections verify`), 2 when
 * the command line itself is wrong.
 */
export async function runCli(argv: string[], io: CliIo): Promise<number> {
  const opened: { infrastructure?: Infrastructure } = {};
  try {
    if (argv[0] === 'help') {
      await io.out(usage(argv[1]));
      return 0;
    }
    const line = parseCommandLine(argv, GLOBAL_FLAGS, 2, (words) => findCommand(words).flags);
    if (line.flags.bool('help')) {
      await io.out(usage(line.words[0]));
      return 0;
    }
    if (line.words.length === 0) throw new UsageError('No command given');
    if (line.words.length === 1) {
      throw new UsageError(
        COMMANDS.some((c) => c.group === line.words[0])
          ? `"${line.words[0]}" needs an action`
          : `Unknown command "${line.words[0]}"`,
      );
    }
    const command = findCommand(line.words);
    if (line.positionals.length !== command.args.length) {
      throw new UsageError(`Expected: ${synopsis(command)}`);
    }
    const dataDir = resolve(line.flags.text('data-dir') ?? (io.env.DATA_DIR || './data'));
    const context: CommandContext = {
      dataDir,
      json: line.flags.bool('json') ?? false,
      io,
      infrastructure: () =>
        (opened.infrastructure ??= openEmbeddedInfrastructure({
          dataDir,
          personalData: { policies: PLATFORM_PERSONAL_DATA, masterKey: io.env.PERSONAL_DATA_MASTER_KEY },
        })),
    };
    const args = Object.fromEntries(command.args.map((name, i) => [name, line.positionals[i]]));
    return await command.run(context, { args, flags: line.flags });
  } catch (error) {
    if (error instanceof UsageError) {
      io.err(`error: ${error.message}\n\n${usage(argv.find((arg) => !arg.startsWith('--')))}`);
      return 2;
    }
    if (error instanceof DomainError || error instanceof CommandFailed) {
      io.err(`error: ${error.message}\n`);
      return 1;
    }
    io.err(`unexpected error: ${error instanceof Error ? error.stack : String(error)}\n`);
    return 1;
  } finally {
    await opened.infrastructure?.close();
  }
}
