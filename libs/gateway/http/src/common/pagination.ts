import { applyDecorators } from '@nestjs/common';
import { ApiPropertyOptional } from '@nestjs/swagger';
import { Transform } from 'class-transformer';
import { IsIn, IsInt, IsOptional, IsString, Matches, Max, Min, ValidateBy } from 'class-validator';
import type { FindPage, FindResult } from '@cip/shared/contracts';
import { UUID } from './resource-id.pipe';

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
export const integerFromQuery = ({ value }: { value: unknown }) =>
  typeof value === 'string' && /^[0-9]{1,16}$/.test(value) ? Number(value) : value;

/**
 * `limit` of a list query: an integer from 1 to 100, `defaultLimit` when absent (the list applies it).
 * Decorators applied in this order, as the stack it replaces was (bottom-up), so that the validation
 * messages keep their order.
 */
export const PageLimit = (defaultLimit: number) =>
  applyDecorators(
    Max(100),
    Min(1),
    IsInt({ message: 'limit must be an integer' }),
    Transform(integerFromQuery),
    IsOptional(),
    ApiPropertyOptional({ type: 'integer', minimum: 1, maximum: 100, default: defaultLimit }),
  );

export const SORT_VALUES = ['createdAt', '-createdAt', 'updatedAt', '-updatedAt'] as const;

type CursorField = 'startingAfter' | 'endingBefore';

/** Any resource id of the API: `<prefix>-<uuid>`, or a bare uuid (Event ids). */
const ITEM_ID = new RegExp(`^(?:[a-z]{2,10}-)?${UUID}$`);
const EXAMPLE_ID = 'usr-0f8fad5b-d9cb-469f-a165-70867728950e';

/**
 * A cursor names where the page is, so with the other cursor or a page index the request would name two
 * places: refused rather than one of them silently winning.
 */
const CursorAlone = (field: CursorField, other: CursorField) =>
  ValidateBy({
    name: 'cursorAlone',
    validator: {
      validate: (_value, args) => {
        const query = args?.object as ListQueryDto;
        return query[other] === undefined && !query.fromPage;
      },
      defaultMessage: (args) =>
        (args?.object as ListQueryDto)[other] !== undefined
          ? `${field} cannot be combined with ${other}`
          : `${field} cannot be combined with a fromPage other than 0`,
    },
  });

const Cursor = (field: CursorField, other: CursorField, description: string) => {
  const notAnId = { message: `${field} must be the id of an item of this list` };
  return applyDecorators(
    ApiPropertyOptional({
      type: 'string',
      pattern: ITEM_ID.source,
      maxLength: 47,
      example: EXAMPLE_ID,
      description,
    }),
    CursorAlone(field, other),
    Matches(ITEM_ID, notAnId),
    IsString(notAnId),
    IsOptional(),
  );
};

/**
 * Sorting and pagination of every list endpoint (spec part 4): a page index (`fromPage`), or a cursor
 * (`startingAfter` / `endingBefore`, as Stripe's) that stays right while items are added.
 */
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
    description:
      'Index of the page to return. Items created meanwhile shift the pages: use a cursor to walk a list.',
  })
  @IsOptional()
  @Transform(integerFromQuery)
  @IsInt({ message: 'fromPage must be an integer' })
  @Min(0)
  @Max(MAX_FROM_PAGE)
  fromPage?: number;

  @PageLimit(10)
  limit?: number;

  @Cursor(
    'startingAfter',
    'endingBefore',
    'The page of items right after this one, in the order of `sortBy`: pass the id of the last item of ' +
      'the page you have to get the next one. Items added meanwhile are never repeated or skipped. ' +
      'Not with `endingBefore` or a `fromPage` other than 0; an id that is not one of your items of ' +
      'this list is 400 validation_error.',
  )
  startingAfter?: string;

  @Cursor(
    'endingBefore',
    'startingAfter',
    'The page of items right before this one, still in the order of `sortBy`: pass the id of the first ' +
      'item of the page you have to get the previous one; `hasMore` then says whether more items precede ' +
      'the page. Not with `startingAfter` or a `fromPage` other than 0; an id that is not one of your ' +
      'items of this list is 400 validation_error.',
  )
  endingBefore?: string;
}

export function toPageQuery(query: ListQueryDto): FindPage {
  const sortBy = query.sortBy ?? '-createdAt';
  return {
    sort: {
      field: sortBy.replace('-', '') as 'createdAt' | 'updatedAt',
      direction: sortBy.startsWith('-') ? 'desc' : 'asc',
    },
    page: query.fromPage ?? 0,
    limit: query.limit ?? 10,
    ...(query.startingAfter !== undefined ? { cursor: { startingAfter: query.startingAfter } } : {}),
    ...(query.endingBefore !== undefined ? { cursor: { endingBefore: query.endingBefore } } : {}),
  };
}

/** The pagination envelope of spec part 2 (`page` is 0 for a page read with a cursor). */
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
