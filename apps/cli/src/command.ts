import type { Infrastructure } from '@cip/shared/infrastructure';
import type { Command } from 'commander';
import type { Progress } from './progress';

/** Where the CLI reads its environment and writes; the process's own streams, or buffers in tests. */
export interface CliIo {
  /** Writes to standard output; resolves once more may be written (exports can be large). */
  out(chunk: string): Promise<void>;
  err(chunk: string): void;
  env: Record<string, string | undefined>;
  /** Whether stderr is a terminal: progress of long operations is then shown without `--progress`. */
  errIsTerminal?: boolean;
  /** Milliseconds, for throttling progress lines (performance.now unless a test drives time). */
  now?: () => number;
}

/**
 * A mistake in the command line that only the command can see (a value the parser cannot judge): exit
 * code 2, and the command's help follows the message unless `showHelp` is false.
 */
export class UsageError extends Error {
  constructor(
    message: string,
    readonly showHelp = true,
  ) {
    super(message);
    this.name = 'UsageError';
  }
}

/** A command that ran but could not do what was asked: its message goes to stderr, the exit code is 1. */
export class CommandFailed extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'CommandFailed';
  }
}

export interface CommandContext {
  /** The data directory; reading it refuses (exit code 2) a directory that does not exist. */
  readonly dataDir: string;
  json: boolean;
  io: CliIo;
  /** The data directory's stores, opened on first use and closed when the command ends. */
  infrastructure(): Infrastructure;
  /** Progress lines of a long operation on stderr; silent unless stderr is a terminal or `--progress`. */
  progress(label: string): Progress;
  /** The address links start with: the one the platform uses with the same environment. */
  publicBaseUrl(): string;
}

export interface CommandInput<Options> {
  /** Positional arguments, in the order the command declares them. */
  args: string[];
  options: Options;
}

/** A command's work; returns the exit code. */
export type CommandHandler<Options> = (
  context: CommandContext,
  input: CommandInput<Options>,
) => Promise<number>;

/**
 * What command modules register with (`registerKeysCommands(program, cli)`): `cli.action(handler)` is the
 * commander action of a command, which builds the context from the global options when the line is parsed.
 */
export interface Cli {
  action<Options = Record<string, never>>(
    handler: CommandHandler<Options>,
  ): (...params: unknown[]) => Promise<void>;
}

/** Adds a group (`keys`) to the program; its commands are added to the group returned. */
export function commandGroup(program: Command, name: string, description: string): Command {
  return program.command(name).description(description);
}

/** Help text listing examples, shown after a command's options. */
export function examples(...lines: string[]): string {
  return `\nExamples:\n${lines.map((line) => `  $ npm run cli -- ${line}`).join('\n')}\n`;
}

/** Prints `value` as JSON with `--json`, otherwise the text lines. */
export async function print(context: CommandContext, value: unknown, lines: () => string[]): Promise<void> {
  await context.io.out(context.json ? `${JSON.stringify(value, null, 2)}\n` : `${lines().join('\n')}\n`);
}

/** Left-aligned columns, two spaces apart, under a header row. */
export function table(headers: string[], rows: string[][]): string[] {
  const widths = headers.map((header, column) =>
    Math.max(header.length, ...rows.map((row) => row[column].length)),
  );
  const line = (cells: string[]) =>
    cells
      .map((cell, column) => cell.padEnd(widths[column]))
      .join('  ')
      .trimEnd();
  return [line(headers), ...rows.map(line)];
}

export const yesNo = (value: boolean): string => (value ? 'yes' : 'no');
