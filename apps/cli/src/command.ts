import type { Infrastructure } from '@cip/shared/infrastructure';
import type { FlagSpecs, ParsedFlags } from './args';

/** Where the CLI reads its environment and writes; the process's own streams, or buffers in tests. */
export interface CliIo {
  /** Writes to standard output; resolves once more may be written (exports can be large). */
  out(chunk: string): Promise<void>;
  err(chunk: string): void;
  env: Record<string, string | undefined>;
}

/** A command that ran but could not do what was asked: its message goes to stderr, the exit code is 1. */
export class CommandFailed extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'CommandFailed';
  }
}

export interface CommandContext {
  dataDir: string;
  json: boolean;
  io: CliIo;
  /** The data directory's stores, opened on first use and closed when the command ends. */
  infrastructure(): Infrastructure;
}

export interface CommandInput {
  /** Positional arguments by the names the command declares. */
  args: Record<string, string>;
  flags: ParsedFlags;
}

export interface Command {
  group: string;
  action: string;
  /** Names of the positional arguments, all required. */
  args: string[];
  flags: FlagSpecs;
  description: string;
  /** Returns the exit code. */
  run(context: CommandContext, input: CommandInput): Promise<number>;
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
