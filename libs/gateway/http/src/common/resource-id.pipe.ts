import { PipeTransform } from '@nestjs/common';
import { DomainError } from '@cip/shared/contracts';

/** A lowercase uuid, the body of every resource id (`usr-<uuid>`), as regular expression source. */
export const UUID = '[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}';

/** The shape of a resource id (`usr-<uuid>`), or of a bare uuid without a prefix: for path pipes and DTOs. */
export const resourceIdPattern = (prefix: string | null): RegExp =>
  new RegExp(`^${prefix ? `${prefix}-` : ''}${UUID}$`);

/**
 * A path id that cannot exist (wrong prefix, not a uuid) is simply not found: the same answer as an id
 * of another tenant, so ids reveal nothing.
 */
export class ResourceIdPipe implements PipeTransform<string, string> {
  private readonly pattern: RegExp;

  constructor(private readonly prefix: string | null) {
    this.pattern = resourceIdPattern(prefix);
  }

  transform(value: string): string {
    if (!this.pattern.test(value))
      throw new DomainError('not_found', `No resource with id ${value.slice(0, 80)}`);
    return value;
  }
}
