import { applyDecorators, Type } from '@nestjs/common';
import { ApiExtraModels, ApiOkResponse, ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { IsSafeText, PageLimit, publicSchemaName } from '@cip/gateway/http';
import { IsOptional, IsString, Length, Matches } from 'class-validator';

/**
 * `reason` of an action that changes money or status (docs/operator-api.md, "Conventions"): 1 to 500
 * characters, a ticket or case reference. Missing: `400 validation_error` naming `reason`.
 */
export class ReasonDto {
  @ApiProperty({
    minLength: 1,
    maxLength: 500,
    description: 'Why: a ticket or case reference, nothing personal',
    example: 'TICKET-4211',
  })
  @IsString()
  @Length(1, 500)
  @IsSafeText()
  reason: string;
}

export const DEFAULT_PAGE_LIMIT = 25;

/** `?limit=&cursor=` of the operator API's lists. */
export class CursorPageQueryDto {
  @PageLimit(DEFAULT_PAGE_LIMIT)
  limit?: number;

  @ApiPropertyOptional({ description: 'The `nextCursor` of the page before', maxLength: 200 })
  @IsOptional()
  @IsString()
  @Matches(/^[A-Za-z0-9_.:=-]{1,200}$/, { message: 'cursor must be the nextCursor of a previous page' })
  cursor?: string;
}

const pages = new Map<Type<unknown>, Type<unknown>>();

/** The schema of `{data: [...], nextCursor}` of one item type, made once per type. */
function cursorPageOf(item: Type<unknown>): Type<unknown> {
  const known = pages.get(item);
  if (known) return known;
  class CursorPage {
    @ApiProperty({ type: [item] })
    data: unknown[];
    @ApiProperty({
      type: 'string',
      nullable: true,
      description: 'Pass as `cursor` for the next page; null on the last',
    })
    nextCursor: string | null;
  }
  Object.defineProperty(CursorPage, 'name', { value: `${publicSchemaName(item.name)}List` });
  pages.set(item, CursorPage);
  return CursorPage;
}

/** Documents a list operation's `200` as `{data, nextCursor}` of `item`. */
export const ApiCursorPageResponse = (item: Type<unknown>) => {
  const page = cursorPageOf(item);
  return applyDecorators(ApiExtraModels(item, page), ApiOkResponse({ type: page }));
};
