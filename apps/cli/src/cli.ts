import { PLATFORM_PERSONAL_DATA } from '@cip/platform/registry';
import { DomainError } from '@cip/shared/contracts';
import {
  Infrastructure,
  openEmbeddedInfrastructure,
  openPostgresStoresForTool,
} from '@cip/shared/infrastructure';
import { ConfigError, publicBaseUrl, readPlatformConfig } from '@cip/shared/runtime';
import { Command, CommanderError } from 'commander';
import { readFileSync, statSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { Cli, CliIo, CommandContext, CommandFailed, CommandHandler, UsageError } from './command';
import { registerAuthorizationCommands } from './commands/authorizations';
import { registerCardCommands } from './commands/cards';
import { registerDistributorCommands } from './commands/distributors';
import { registerExportCommands } from './commands/export';
import { registerKeyCommands } from './commands/keys';
import { registerKycCommands } from './commands/kyc';
import { registerProjectionCommands } from './commands/projections';
import { registerUserCommands } from './commands/users';
import { registerStaffCommands } from './commands/staff';
import { registerVaultCommands } from './commands/vault';
import { registerWalletCommands } from './commands/wallets';
import { registerSettlementCommands } from './commands/settlement';
import { registerWebhookCommands } from './commands/webhooks';
import { NO_PROGRESS, progressLines } from './progress';

/** The command groups, in the order `--help` lists them. A new group is one more line here. */
const COMMAND_GROUPS: ((program: Command, cli: Cli) => void)[] = [
  registerDistributorCommands,
  registerKeyCommands,
  registerUserCommands,
  registerKycCommands,
  registerWalletCommands,
  registerSettlementCommands,
  registerCardCommands,
  registerAuthorizationCommands,
  registerWebhookCommands,
  registerProjectionCommands,
  registerExportCommands,
  registerVaultCommands,
  registerStaffCommands,
];

/** Options of every command, declared on the program. */
interface GlobalOptions {
  dataDir?: string;
  json?: boolean;
  progress?: boolean;
}

/**
 * The version of the platform the CLI belongs to: the root package.json's. Found by walking up from this
 * file because the CLI runs both from its sources (tests) and from dist/, at different depths.
 */
function platformVersion(): string {
  for (let dir = __dirname; ; dir = dirname(dir)) {
    try {
      return (JSON.parse(readFileSync(join(dir, 'package.json'), 'utf8')) as { version: string }).version;
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'ENOENT' || dirname(dir) === dir) throw error;
    }
  }
}

/**
 * The data directory named by `--data-dir`, else DATA_DIR, else ./data. It must exist: the platform creates
 * it (owner-only) on its first start, and a CLI creating an empty one on a typo would hide the mistake
 * behind "not found" answers.
 */
function existingDataDir(options: GlobalOptions, io: CliIo): string {
  const [given, source] = options.dataDir
    ? [options.dataDir, '--data-dir']
    : io.env.DATA_DIR
      ? [io.env.DATA_DIR, 'DATA_DIR']
      : ['./data', 'the default ./data'];
  const dataDir = resolve(given);
  const stat = statSync(dataDir, { throwIfNoEntry: false });
  if (!stat?.isDirectory()) {
    throw new UsageError(
      `Data directory ${dataDir} (${source}) ${stat ? 'is not a directory' : 'does not exist'}. ` +
        "Give the platform's data directory (it is created when the platform first starts); " +
        'the CLI never creates one.',
      false,
    );
  }
  return dataDir;
}

function commandContext(
  io: CliIo,
  options: GlobalOptions,
  opened: { infrastructure?: Infrastructure },
): CommandContext {
  let dataDir: string | undefined;
  const checkedDataDir = () => (dataDir ??= existingDataDir(options, io));
  const showProgress = options.progress ?? io.errIsTerminal ?? false;
  return {
    // Checked when first read, so commands that do not touch the data directory run without one.
    get dataDir() {
      return checkedDataDir();
    },
    json: options.json ?? false,
    io,
    infrastructure: () =>
      (opened.infrastructure ??= openEmbeddedInfrastructure({
        dataDir: checkedDataDir(),
        personalData: { policies: PLATFORM_PERSONAL_DATA, masterKey: io.env.PERSONAL_DATA_MASTER_KEY },
      })),
    progress: (label) => (showProgress ? progressLines(label, io.err, io.now) : NO_PROGRESS),
    publicBaseUrl: () => {
      try {
        return publicBaseUrl(readPlatformConfig(io.env));
      } catch (error) {
        // The platform would refuse to start with this environment: say which variable is wrong.
        throw new UsageError(error instanceof Error ? error.message : String(error), false);
      }
    },
  };
}

/**
 * With STORE_DRIVER=postgres the commands work on the deployment's PostgreSQL stores (DATABASE_URL,
 * PERSONAL_DATA_MASTER_KEY, as its apps read them) instead of DATA_DIR's SQLite files: opened here, before the
 * command, since opening them is asynchronous. The card vault commands stay the embedded runtime's.
 */
async function openServerStores(io: CliIo, opened: { infrastructure?: Infrastructure }): Promise<void> {
  if (io.env.STORE_DRIVER !== 'postgres' || opened.infrastructure) return;
  try {
    opened.infrastructure = (
      await openPostgresStoresForTool('cip-cli', io.env, PLATFORM_PERSONAL_DATA)
    ).infrastructure;
  } catch (error) {
    if (error instanceof ConfigError) throw new UsageError(error.message, false);
    throw error;
  }
}

function buildProgram(io: CliIo, run: { exitCode: number; opened: { infrastructure?: Infrastructure } }) {
  const program = new Command('npm run cli --')
    .description('Operator and analyst commands over the platform data directory (embedded runtime).')
    .version(platformVersion(), '-V, --version', 'print the version')
    .option('--data-dir <path>', 'data directory (default: $DATA_DIR, else ./data); it must exist')
    .option('--json', 'print JSON instead of text (exports are always NDJSON)')
    .option('--progress', 'report progress of long operations on stderr (default when stderr is a terminal)')
    .option('--no-progress', 'never report progress')
    .configureOutput({ writeOut: (chunk) => void io.out(chunk), writeErr: (chunk) => io.err(chunk) })
    .configureHelp({ showGlobalOptions: true })
    .showHelpAfterError()
    .allowExcessArguments(false)
    // Errors come back as CommanderError instead of exiting: runCli turns them into exit codes.
    .exitOverride();
  const cli: Cli = {
    action<Options>(handler: CommandHandler<Options>) {
      return async (...params: unknown[]) => {
        const command = params[params.length - 1] as Command;
        await openServerStores(io, run.opened);
        const context = commandContext(io, command.optsWithGlobals<GlobalOptions>(), run.opened);
        try {
          run.exitCode = await handler(context, {
            args: command.processedArgs as string[],
            options: command.opts() as Options,
          });
        } catch (error) {
          if (error instanceof UsageError && error.showHelp) {
            command.error(`error: ${error.message}`, { exitCode: 2, code: 'cli.usage' });
          }
          throw error;
        }
      };
    },
  };
  for (const register of COMMAND_GROUPS) register(program, cli);
  return program;
}

/**
 * Runs one CLI command line (`argv` without node and the script) and returns the exit code: 0 on success
 * (and for `--help`, `--version`), 1 when the command failed (a domain rule, a refusal, a difference found
 * by `projections verify`), 2 when the command line itself is wrong (the message, then the help, on stderr).
 */
export async function runCli(argv: string[], io: CliIo): Promise<number> {
  const run = { exitCode: 0, opened: {} as { infrastructure?: Infrastructure } };
  try {
    await buildProgram(io, run).parseAsync(argv, { from: 'user' });
    return run.exitCode;
  } catch (error) {
    // commander has printed its message (and the help) already; only help and version exit with 0.
    if (error instanceof CommanderError) return error.exitCode === 0 ? 0 : 2;
    if (error instanceof UsageError) {
      io.err(`error: ${error.message}\n`);
      return 2;
    }
    if (error instanceof DomainError || error instanceof CommandFailed) {
      io.err(`error: ${error.message}\n`);
      return 1;
    }
    io.err(`unexpected error: ${error instanceof Error ? error.stack : String(error)}\n`);
    return 1;
  } finally {
    await run.opened.infrastructure?.close();
  }
}
