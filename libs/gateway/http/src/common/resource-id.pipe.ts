import { PipeTransform } from '@nestjs/common';
import { DomainError } from '@cip/shared/contracts';

/** A lowercase uuid, the body of every resource id (`usr-<uuid>`), as regular expression source. */
export const UUID = '[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}';

/**
 * A path id that cannot exist (wrong prefix, not a uuid) is simply not found: the same answer as an id
 * of another tenant, so ids reveal nothing.
 */
export class ResourceIdPipe implements PipeTransform<string, string> {
  private readonly pattern: RegExp;

  constructor(private readonly prefix: string | null) {
    this.pattern = new RegExp(`^${prefix ? `${prefix}-` : ''}${UUID}$`);
  }

  transform(value: string): string {
    if (!this.pattern.test(value))
      throw new DomainError('not_found', `No resource with id ${value.slice(0, 80)}`);
    return value;
  }
}
