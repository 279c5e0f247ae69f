/**
 * How a flag reads its value: `text` and `list` (comma-separated) take one; `boolean` takes `true` or
 * `false`; `switch` takes none (its presence means true).
 */
export type FlagKind = 'text' | 'list' | 'boolean' | 'switch';

export interface FlagSpec {
  kind: FlagKind;
  required?: boolean;
  /** Placeholder in the usage text. */
  valueName?: string;
  /** The only values accepted (text flags). */
  choices?: readonly string[];
}

export type FlagSpecs = Record<string, FlagSpec>;

export type FlagValue = string | string[] | boolean;

/** A mistake in the command line itself: the caller prints the usage text and exits with 2. */
export class UsageError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'UsageError';
  }
}

export class ParsedFlags {
  constructor(private readonly values: Map<string, FlagValue>) {}

  has(name: string): boolean {
    return this.values.has(name);
  }

  text(name: string): string | undefined {
    const value = this.values.get(name);
    return typeof value === 'string' ? value : undefined;
  }

  /** A flag declared `required`, which the parser has already checked. */
  requiredText(name: string): string {
    const value = this.text(name);
    if (value === undefined) throw new Error(`Flag --${name} is not declared required`);
    return value;
  }

  list(name: string): string[] | undefined {
    const value = this.values.get(name);
    return Array.isArray(value) ? value : undefined;
  }

  bool(name: string): boolean | undefined {
    const value = this.values.get(name);
    return typeof value === 'boolean' ? value : undefined;
  }
}

export interface CommandLine {
  /** The command's words: group and action (`keys create`); fewer when the line stops early. */
  words: string[];
  positionals: string[];
  flags: ParsedFlags;
}

const parseBoolean = (flag: string, raw: string): boolean => {
  if (raw === 'true') return true;
  if (raw === 'false') return false;
  throw new UsageError(`--${flag} takes true or false, not "${raw}"`);
};

/**
 * Parses `argv` in one pass. The command words come first (flags of `globalFlags` may appear anywhere);
 * once they are all read, `flagsOf(words)` gives the command's flags (or throws for an unknown command).
 * `--flag value` and `--flag=value` are both accepted.
 */
export function parseCommandLine(
  argv: string[],
  globalFlags: FlagSpecs,
  commandWords: number,
  flagsOf: (words: string[]) => FlagSpecs,
): CommandLine {
  const words: string[] = [];
  const positionals: string[] = [];
  const values = new Map<string, FlagValue>();
  let commandFlags: FlagSpecs | null = null;
  for (let i = 0; i < argv.length; i++) {
    const token = argv[i];
    if (!token.startsWith('--')) {
      if (words.length < commandWords) {
        words.push(token);
        if (words.length === commandWords) commandFlags = flagsOf(words);
      } else {
        positionals.push(token);
      }
      continue;
    }
    const equals = token.indexOf('=');
    const name = equals < 0 ? token.slice(2) : token.slice(2, equals);
    const inline = equals < 0 ? undefined : token.slice(equals + 1);
    const spec = globalFlags[name] ?? commandFlags?.[name];
    if (!spec) throw new UsageError(`Unknown flag --${name}`);
    if (values.has(name)) throw new UsageError(`--${name} is given twice`);
    if (spec.kind === 'switch') {
      values.set(name, inline === undefined ? true : parseBoolean(name, inline));
      continue;
    }
    let raw = inline;
    if (raw === undefined) {
      const next = argv[i + 1];
      if (next === undefined || next.startsWith('--')) throw new UsageError(`--${name} needs a value`);
      raw = next;
      i++;
    }
    if (spec.kind === 'boolean') {
      values.set(name, parseBoolean(name, raw));
    } else if (spec.kind === 'list') {
      values.set(
        name,
        raw
          .split(',')
          .map((item) => item.trim())
          .filter((item) => item !== ''),
      );
    } else {
      if (spec.choices && !spec.choices.includes(raw)) {
        throw new UsageError(`--${name} takes ${spec.choices.join(', ')}, not "${raw}"`);
      }
      values.set(name, raw);
    }
  }
  for (const [name, spec] of Object.entries(commandFlags ?? {})) {
    if (spec.required && !values.has(name)) throw new UsageError(`--${name} is required`);
  }
  return { words, positionals, flags: new ParsedFlags(values) };
}

/** How a flag reads in a synopsis: `--name <name>`, `[--b2b]`, `[--b2b true|false]`. */
export function flagSynopsis(name: string, spec: FlagSpec): string {
  const value =
    spec.kind === 'switch'
      ? ''
      : spec.kind === 'boolean'
        ? ' true|false'
        : ` ${spec.choices?.join('|') ?? `<${spec.valueName ?? name}>`}`;
  return spec.required ? `--${name}${value}` : `[--${name}${value}]`;
}
