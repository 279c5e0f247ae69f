import { ApiPropertyOptional } from '@nestjs/swagger';
import { Transform } from 'class-transformer';
import { IsIn, IsInt, IsOptional, Max, Min } from 'class-validator';
import type { FindQuery, FindResult } from '@cip/shared/read-store';

/**
 * Deepest page a list serves: with `limit` at most 100, a million items in. Beyond it, walk with filters: an
 * absurd page is refused instead of becoming a slow scan.
 */
export const MAX_FROM_PAGE = 10_000;

/**
 * A query integer is digits only. `Number()` (what `@Type(() => Number)` does) reads '', whitespace, '0x10'
 * and '1e2' as numbers, so `fromPage=%0D%0A` was page 0; anything else is left as it came, for `@IsInt` to
 * refuse.
 */
const integerFromQuery = ({ value }: { value: unknown }) =>
  typeof value === 'string' && /^[0-9]{1,16}$/.test(value) ? Number(value) : value;

export const SORT_VALUES = ['createdAt', '-createdAt', 'updatedAt', '-updatedAt'] as const;

/** Sorting and pagination of every list endpoint (spec part 4). */
export class ListQueryDto {
  @ApiPropertyOptional({
    enum: SORT_VALUES,
    default: '-createdAt',
    description: 'Prefix a hyphen for descending order',
  })
  @IsOptional()
  @IsIn(SORT_VALUES, { message: `sortBy must be one of ${SORT_VALUES.join(', ')}` })
  sortBy?: (typeof SORT_VALUES)[number];

  @ApiPropertyOptional({
    type: 'integer',
    minimum: 0,
    maximum: MAX_FROM_PAGE,
    default: 0,
    description: 'Index of the page to return',
  })
  @IsOptional()
  @Transform(integerFromQuery)
  @IsInt({ message: 'fromPage must be an integer' })
  @Min(0)
  @Max(MAX_FROM_PAGE)
  fromPage?: number;

  @ApiPropertyOptional({ type: 'integer', minimum: 1, maximum: 100, default: 10 })
  @IsOptional()
  @Transform(integerFromQuery)
  @IsInt({ message: 'limit must be an integer' })
  @Min(1)
  @Max(100)
  limit?: number;
}

export function toPageQuery(query: ListQueryDto): Omit<FindQuery, 'filter'> {
  const sortBy = query.sortBy ?? '-createdAt';
  return {
    sort: {
      field: sortBy.replace('-', '') as 'createdAt' | 'updatedAt',
      direction: sortBy.startsWith('-') ? 'desc' : 'asc',
    },
    page: query.fromPage ?? 0,
    limit: query.limit ?? 10,
  };
}

/** The pagination envelope of spec part 2. */
export interface Page<T> {
  page: number;
  count: number;
  hasMore: boolean;
  items: T[];
}

export function toPage<T, R>(query: ListQueryDto, result: FindResult<T>, render: (item: T) => R): Page<R> {
  return {
    page: query.fromPage ?? 0,
    count: result.items.length,
    hasMore: result.hasMore,
    items: result.items.map(render),
  };
}
