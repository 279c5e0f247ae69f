import { ENVIRONMENTS } from '@cip/shared/contracts';
import { InvalidArgumentError, Option } from 'commander';

/** `--env sandbox|production`, required. */
export const environmentOption = (description = 'environment whose stores the command works on') =>
  new Option('--env <environment>', description).choices(ENVIRONMENTS).makeOptionMandatory();

/** `--distributor <distributorId>`, required. */
export const distributorOption = (description = 'the distributor acting (dst-...)') =>
  new Option('--distributor <distributorId>', description).makeOptionMandatory();

/** An option taking `true` or `false` (commander's choices would keep the text, not the boolean). */
export const booleanOption = (flags: string, description: string) =>
  new Option(flags, description).argParser((value: string) => {
    if (value === 'true') return true;
    if (value === 'false') return false;
    throw new InvalidArgumentError('Takes true or false.');
  });

/** Parses a whole non-negative number (`--from 120`); commander shows the message after the value. */
export function nonNegativeInteger(value: string): number {
  if (!/^\d+$/.test(value)) throw new InvalidArgumentError('Takes a whole number.');
  return Number(value);
}

/** A text that must not be blank (`--name`); trimmed. */
export function nonEmpty(value: string): string {
  const trimmed = value.trim();
  if (!trimmed) throw new InvalidArgumentError('Must not be empty.');
  return trimmed;
}
