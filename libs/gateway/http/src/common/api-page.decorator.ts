import { applyDecorators, Type } from '@nestjs/common';
import { ApiExtraModels, ApiOkResponse, ApiProperty } from '@nestjs/swagger';
import { publicSchemaName } from '../openapi/schema-names';

const pages = new Map<Type<unknown>, Type<unknown>>();

/** The schema of the list envelope `{page, count, hasMore, items}` of one item type, made once per type. */
function pageOf(item: Type<unknown>): Type<unknown> {
  const known = pages.get(item);
  if (known) return known;
  class Page {
    @ApiProperty({ type: 'integer', minimum: 0, description: 'Index of this page', example: 0 })
    page: number;
    @ApiProperty({ type: 'integer', minimum: 0, description: 'Number of items in this page', example: 1 })
    count: number;
    @ApiProperty({ description: 'Whether a next page exists' })
    hasMore: boolean;
    @ApiProperty({ type: [item] })
    items: unknown[];
  }
  // @nestjs/swagger names a schema after its class: one named schema per item type (`UserPage`).
  Object.defineProperty(Page, 'name', { value: `${publicSchemaName(item.name)}Page` });
  pages.set(item, Page);
  return Page;
}

/** Documents a list operation's `200` as the pagination envelope of `item` (spec part 2). */
export const ApiPageResponse = (item: Type<unknown>) => {
  const page = pageOf(item);
  return applyDecorators(ApiExtraModels(item, page), ApiOkResponse({ type: page }));
};
